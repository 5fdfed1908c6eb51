// The merchant kit in workerd, Cloudflare's Workers runtime (the `workerd` binary, started by miniflare), as a
// module Worker without nodejs_compat, against the same kit on Node.
import { describeConformance } from '../../support/runtimes/conformance.js';

describeConformance('workerd', { signsWith: 'WebCrypto', callsWith: 'fetch', channels: 'none' });
