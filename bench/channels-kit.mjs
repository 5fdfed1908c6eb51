// A merchant kit for the channels' bench (bench/channels.mjs): createMerchantHandler under node:http, from the module
// at KIT_MODULE (the kit as built from one commit or another), in front of the sandbox at SANDBOX_URL. SUBSCRIBE=1
// subscribes to every channel the kit has, as an APM tool would: each message read, nothing more. Prints its address
// on the first line of its output; stops on SIGTERM.
import { subscribe, tracingChannel } from 'node:diagnostics_channel';
import { createServer } from 'node:http';
import { DEFAULT_MERCHANT } from '../dist/sandbox/index.js';

const kit = await import(process.env.KIT_MODULE);
let heard = 0;
const read = (message) => {
  heard += message.durationMs === undefined ? 1 : 2;
};
if (process.env.SUBSCRIBE === '1') {
  if (!kit.CHANNELS) throw new Error(`${process.env.KIT_MODULE} has no channels to subscribe to`);
  for (const name of Object.values(kit.CHANNELS)) {
    if (name === kit.CHANNELS.redis || name === kit.CHANNELS.timing) subscribe(name, read);
    else tracingChannel(name).subscribe({ start: read, end: read, asyncStart: read, asyncEnd: read, error: read });
  }
}

const handler = kit.createMerchantHandler({
  merchantId: DEFAULT_MERCHANT.merchantId,
  privateKey: DEFAULT_MERCHANT.privateKey,
  environment: { baseUrl: process.env.SANDBOX_URL },
  // Every query comes from 127.0.0.1, each for an order of its own (bench/channels.mjs).
  limits: { createsPerClient: false, statusPerClient: false, statusPerOrder: false },
  logger: { warn() {}, error() {} },
});
const server = createServer({ keepAliveTimeout: 60_000 }, kit.toNodeListener(handler));
server.listen(0, '127.0.0.1', () => process.stdout.write(`kit listening on http://127.0.0.1:${server.address().port}\n`));
process.once('SIGTERM', () => {
  if (process.env.SUBSCRIBE === '1' && heard === 0) process.stderr.write('the subscriber heard nothing\n');
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
