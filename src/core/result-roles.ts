/**
 * The result codes the client acts on, by the role each plays (the codes themselves and their messages are in
 * errors.ts, RESULT_CODES). A module of its own, so that the isolated frame's page carries these two names only.
 */
export const RESULT_ROLES = {
  /** The kit or the service refused the request's proof (a used ticket, a refused stream): `02000`. */
  refused: '02000',
  /** The request broke the rules; `data.errors` names the fields: `02001`. */
  invalid: '02001',
} as const;
