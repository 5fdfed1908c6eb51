// The merchant kit in Vercel's Edge Runtime (the `edge-runtime` package: the runtime of Vercel's Edge Functions and
// Next.js middleware), against the same kit on Node.
import { describeConformance } from '../../support/runtimes/conformance.js';

describeConformance('edge-runtime', { signsWith: 'WebCrypto', callsWith: 'fetch', channels: 'none' });
