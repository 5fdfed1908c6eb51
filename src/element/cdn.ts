/**
 * The CDN file's entry (dist/cdn/svc-checkout.js): registers `<svc-checkout>` and exports what a page without a
 * bundler configures it with. The classes of the events stay with the package's entry (index.ts), for bundled
 * apps and their types; a page listens by name and reads `detail`. Every class this file exported would be bytes
 * of the first frame, and all but two come with the session's chunk.
 */
import './define.js';

export { SvcCheckout } from './svc-checkout.js';
export { TAG_NAME } from './define.js';
export { registerTranslation } from './i18n/registry.js';
export { PayResultStatus } from '../core/pay-result.js';
