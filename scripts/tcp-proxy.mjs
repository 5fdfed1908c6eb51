// A TCP proxy on 127.0.0.1 in front of one address, that can stop forwarding and start again: a network partition
// between one kit process and Redis, on demand (a real one cannot be made on demand). While cut, nothing passes either
// way and nothing is closed, as when packets are dropped: each side's data waits (TCP retransmits it) and arrives once
// it heals; connections opened meanwhile wait too.
import { connect, createServer } from 'node:net';

/** Starts the proxy to `port` on `host`; resolves with its own port, `cut()`, `heal()` and `close()`. */
export async function startTcpProxy({ host = '127.0.0.1', port }) {
  const pairs = new Set();
  let cut = false;
  const server = createServer((client) => {
    const upstream = connect({ host, port });
    const pair = { client, upstream };
    pairs.add(pair);
    const end = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
    // Data read while cut is held, and passed on in order when it heals.
    pair.held = [];
    const forward = (to) => (chunk) => {
      if (cut || pair.held.length > 0) pair.held.push([to, chunk]);
      else to.write(chunk);
    };
    client.on('data', forward(upstream));
    upstream.on('data', forward(client));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: server.address().port,
    url: `redis://127.0.0.1:${server.address().port}`,
    /** Stops forwarding: both ways, every connection, until `heal()`. */
    cut() {
      cut = true;
    },
    heal() {
      cut = false;
      for (const pair of pairs) for (const [to, chunk] of pair.held.splice(0)) to.write(chunk);
    },
    async close() {
      for (const { client, upstream } of pairs) {
        client.destroy();
        upstream.destroy();
      }
      await new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
