// A service for the channels' bench (bench/channels.mjs) that costs next to nothing: every POST answers the same
// status envelope of a pending order, at once, on keep-alive connections, so that the kits in front of it are what
// the bench weighs. Prints its address on the first line of its output; stops on SIGTERM.
import { createServer } from 'node:http';

const ANSWER = JSON.stringify({
  code: '00000',
  message: 'SUCCESSFUL',
  data: { reference: 'bench-channels', orderNo: '26112200000001', status: 'PENDING', amount: { total: 12_500, currency: 'EGP' } },
});
const server = createServer({ keepAliveTimeout: 60_000 }, (request, response) => {
  request.resume();
  request.on('end', () => {
    response.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(ANSWER), Date: new Date().toUTCString() });
    response.end(ANSWER);
  });
});
server.listen(0, '127.0.0.1', () => process.stdout.write(`service listening on http://127.0.0.1:${server.address().port}\n`));
process.once('SIGTERM', () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
