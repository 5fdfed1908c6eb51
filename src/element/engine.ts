/**
 * What `<svc-checkout>` loads after its first frame (src/element/svc-checkout.ts): the session and what it needs
 * (the rules, the endpoint client, the status follower), the words of its messages, and the parts of every step
 * after the form. One chunk of the CDN build; the element fetches it as soon as the first frame is painted.
 */
import './parts/steps.js';

export { CheckoutSession } from '../checkout/session.js';
export { announcementText } from './messages.js';
export { viewOf } from './view.js';
