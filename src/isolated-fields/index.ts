/**
 * `svc-checkout/isolated-fields`: the payer's bank account details, one-time code and PIN typed in a frame the
 * shop's page cannot read, for a shop's own UI on a headless `CheckoutSession` (docs/isolated-fields.md).
 */
export { mountIsolatedFields, type MountedFields, type MountOptions } from './mount.js';
export { FRAME_FIELDS, THEME_TOKENS, type FrameFocus, type FrameKind, type FrameWords } from './protocol.js';
