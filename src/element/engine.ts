/**
 * What `<svc-checkout>` loads after its first frame (src/element/svc-checkout.ts): the session and what it needs
 * (the rules, the endpoint client, the status follower), the words of its messages and steps, the parts of every
 * step after the form, what the element does for them, and the DOM event of each session event. One chunk of the CDN build; the element fetches it
 * as soon as the first frame is painted.
 */
export { CheckoutSession } from '../checkout/session.js';
export { announcementText } from './messages.js';
export { viewOf } from './view.js';
export { renderStep } from './parts/steps.js';
export { renderAlert } from './parts/alert.js';
export { domEventOf } from './events/table.js';
export { stepActions } from './step-commands.js';
export { StepFocusController } from './controllers/step-focus.js';
export { default as englishSteps } from './i18n/en-steps.js';
