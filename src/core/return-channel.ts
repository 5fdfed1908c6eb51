// Apart from the paths (paths.ts): the session (checkout/environment.ts) listens on the channel and needs no path;
// the kit's return page (src/server/element/return-page.ts) posts on it.
/** The channel the return page tells the shop's tabs on (BroadcastChannel, same origin). */
export const RETURN_CHANNEL = 'svc-checkout';
/** The message the return page posts on `RETURN_CHANNEL`: the bank's window is done with. */
export const RETURN_MESSAGE = '3ds-return';
