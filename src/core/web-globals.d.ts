/**
 * The few web-platform globals `src/core` relies on. They are present in browsers, Node and edge runtimes; core's
 * own type check (src/core/tsconfig.json) has no DOM or Node types, so they are declared here, narrowly.
 */
declare class URL {
  constructor(input: string, base?: string);
  readonly protocol: string;
  readonly hostname: string;
  readonly pathname: string;
  readonly href: string;
  hash: string;
}

/** UTF-8 both ways, for the tokens' base64url payloads (browsers, Node and edge runtimes all have them). */
declare class TextEncoder {
  encode(input?: string): Uint8Array;
}
declare class TextDecoder {
  constructor(label?: string, options?: { fatal?: boolean });
  decode(input?: Uint8Array): string;
}

/** base64 to a string of bytes: a token's payload read (browsers, Node and edge runtimes all have it). */
declare function atob(data: string): string;
