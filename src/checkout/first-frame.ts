/**
 * The form a checkout starts with, from its settings alone. The session starts its state from it; the element
 * paints it as its first frame, before the session (its rules, endpoint client and status follower) has loaded,
 * when nothing else could be shown: no order to resume, no lost create to look for, a configuration that reads.
 */
import { readTokenPayload, uncheckedCheckoutClaims } from '../core/token-wire.js';
import type { CheckoutTokenClaims } from '../core/tokens.js';
import { resolveConfig, type CheckoutConfig, type CheckoutSettings } from './config.js';
import type { KeyValueStorage } from './environment.js';
import type { CheckoutState } from './state.js';
import { loadSaved, storageKeyOf } from './storage.js';

/** A checkout before it is configured. */
export const IDLE_STATE: CheckoutState = {
  phase: { kind: 'idle' },
  methods: [],
  method: 'Pos',
  amount: undefined,
  merchantName: '',
  productName: '',
  reference: undefined,
  values: { Pos: {}, BankAccount: {}, ReferenceCode: {} },
  errors: {},
  alert: undefined,
  notice: undefined,
  busy: false,
  resendWait: 0,
  redirectMode: 'same-window',
  redirectBlocked: false,
  submitCount: 0,
  terminal: undefined,
  isolatedAt: undefined,
};

/** What the configuration decides of the state: the methods and the chosen one, the amount and the names. */
export function formStateOf(config: CheckoutConfig, settings: CheckoutSettings, current: CheckoutState): CheckoutState {
  const { methods } = config;
  const terminal = settings.terminal?.trim() || undefined;
  const state: CheckoutState = {
    ...current,
    methods,
    method: methods.includes(current.method) ? current.method : methods[0]!,
    amount: config.payAmount !== undefined && config.currency ? { total: config.payAmount, currency: config.currency } : undefined,
    merchantName: config.merchantName,
    productName: config.productName ?? '',
    reference: config.reference,
    redirectMode: settings.redirectMode === 'new-window' ? 'new-window' : 'same-window',
    terminal,
    // The isolation policy, decided here with the rest of the configuration: the views only follow it.
    isolatedAt: settings.isolated === false ? undefined : (config.endpoint ?? ''),
  };
  return terminal ? { ...state, values: { ...state.values, Pos: { ...state.values.Pos, sn: terminal } } } : state;
}

/**
 * What a checkout token says, to show it: read, not checked (the kit checked the claims by their rules when it
 * signed them, and checks the tag that covers them at every call). Undefined unless it has the shape the form shows.
 */
export function shownClaims(token: string): CheckoutTokenClaims | undefined {
  const payload = readTokenPayload(token, 'checkout');
  if (typeof payload === 'string') return undefined;
  const claims = uncheckedCheckoutClaims(payload.short);
  const amount = claims.amount as { total: unknown; currency: unknown };
  const product = claims.product as { name: unknown };
  const fine =
    typeof claims.merchantId === 'string' &&
    typeof claims.reference === 'string' &&
    typeof claims.country === 'string' &&
    Number.isSafeInteger(amount.total) &&
    typeof amount.currency === 'string' &&
    typeof product.name === 'string' &&
    (claims.methods === undefined || (Array.isArray(claims.methods) && claims.methods.length > 0)) &&
    (claims.merchantName === undefined || typeof claims.merchantName === 'string');
  return fine ? (claims as CheckoutTokenClaims) : undefined;
}

/** The configuration the first frame shows, from the settings alone (a token's claims read, not checked). */
export function shownConfigOf(settings: CheckoutSettings): ReturnType<typeof resolveConfig> {
  return resolveConfig(settings, settings.payParams, settings.userInfo, shownClaims);
}

/**
 * The first frame's state: the form, when the settings read and nothing of this checkout was saved that the
 * session must resume or look for; undefined otherwise (the session decides what to show).
 */
export function firstFrameOf(settings: CheckoutSettings, environment: { storage?: KeyValueStorage | undefined; pageUrl(): string }): CheckoutState | undefined {
  if (settings.statusOnly || settings.refused) return undefined;
  const { config, problem } = shownConfigOf(settings);
  if (problem) return undefined;
  const saved = loadSaved(storageKeyOf(config, environment.pageUrl()), environment.storage);
  // An order of this checkout to show (kept here, or found by the kit when it issued the token): the session decides.
  if (saved?.order || saved?.creating || (config.started && (saved?.attempt ?? 0) < config.startAttempt)) return undefined;
  // What the shop knows of the payer fills the reference code form once that form's chunk has come (fields.ts,
  // `prefilled`; parts/forms.ts): the first frame carries none of its rows.
  return { ...formStateOf(config, settings, IDLE_STATE), phase: { kind: 'form' } };
}
