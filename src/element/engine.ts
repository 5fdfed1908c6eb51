/**
 * What `<svc-checkout>` loads after its first frame (src/element/svc-checkout.ts): the session and its link to the
 * element (controllers/session-link.ts: its events, focus, the checkout context), the words of its messages and steps,
 * the parts of every step after the form. One chunk of the CDN build; the element fetches it as soon as the first
 * frame is painted.
 */
export { SessionLink } from './controllers/session-link.js';
export { renderStep } from './parts/steps.js';
export { renderAlert } from './parts/alert.js';
export { default as englishSteps } from './i18n/en-steps.js';
