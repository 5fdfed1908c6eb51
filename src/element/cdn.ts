/**
 * The CDN file's entry (dist/cdn/svc-checkout.js): registers `<svc-checkout>` and exports what a page without a
 * bundler configures it with. The classes of the events stay with the package's entry (index.ts), for bundled
 * apps and their types; a page listens by name and reads `detail`. Every class this file exported would be bytes
 * of the first frame, and all but two come with the session's chunk.
 */
import './define.js';
import { SvcCheckout } from './svc-checkout.js';

// The element's endpoint, unless a page sets one: the folder this file was served from, as the merchant kit serves
// it (`<basePath>/svc-checkout.js`). Not from another origin (an npm CDN): there the page names its endpoint.
const folder = new URL('.', import.meta.url);
if (folder.origin == location.origin) SvcCheckout.defaultEndpoint = folder.pathname;

export { SvcCheckout };
export { TAG_NAME } from './define.js';
export { registerTranslation } from './i18n/registry.js';
export { PayResultStatus } from '../core/pay-result.js';
