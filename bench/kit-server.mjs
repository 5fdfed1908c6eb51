// The merchant kit as a merchant runs it: createMerchantHandler under node:http, in a process of its own, in front
// of the sandbox at SANDBOX_URL. Prints its address on the first line of its output; stops on SIGTERM.
import { createServer } from 'node:http';
import { DEFAULT_MERCHANT } from '../dist/sandbox/index.js';
import { createMerchantHandler, toNodeListener } from '../dist/server/index.js';

const handler = createMerchantHandler({
  merchantId: DEFAULT_MERCHANT.merchantId,
  privateKey: DEFAULT_MERCHANT.privateKey,
  environment: { baseUrl: process.env.SANDBOX_URL },
  // Every request of the bench comes from 127.0.0.1: the per-client limits would count them as one payer. Its status
  // queries ask each order many times a second, past the per-order limit (what they measure is the kit's cost).
  limits: { createsPerClient: false, statusPerClient: false, statusPerOrder: false },
  logger: { warn() {}, error() {} },
});
const server = createServer(toNodeListener(handler));
server.listen(0, '127.0.0.1', () => process.stdout.write(`kit listening on http://127.0.0.1:${server.address().port}\n`));
process.once('SIGTERM', () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
