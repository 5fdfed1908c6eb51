// A small round-robin HTTP proxy on 127.0.0.1, as a load balancer spreads requests over kit processes: each request
// goes to the next target, and its answer is passed on as it comes (streams included). As nginx and haproxy do, a
// target that refuses the connection is skipped for the next one (nothing reached it), and a payer's connection
// is closed when its target dies mid-answer (a stream left open and silent would hide the death). Each request has a
// connection of its own, as nginx's default upstream has: a socket kept to a dead target would reset mid-request.
// For npm run load --kits N.
import { createServer, request as httpRequest } from 'node:http';

/** Forwards one request, its body already read, to `targets` from `first` on, skipping those that refuse it. */
export function forward(incoming, outgoing, body, targets, first, tried = 0) {
  const target = targets[(first + tried) % targets.length];
  const upstream = httpRequest(`${target}${incoming.url ?? '/'}`, { method: incoming.method, headers: incoming.headers, agent: false }, (answer) => {
    outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
    outgoing.flushHeaders();
    answer.pipe(outgoing);
    answer.on('close', () => {
      if (!answer.complete) outgoing.destroy(); // the target died mid-answer
    });
  });
  upstream.on('error', (error) => {
    if (!outgoing.headersSent && error.code === 'ECONNREFUSED' && tried + 1 < targets.length) {
      forward(incoming, outgoing, body, targets, first, tried + 1);
    } else if (!outgoing.headersSent) outgoing.writeHead(502, { 'Content-Type': 'text/plain' }).end('bad gateway');
    else outgoing.destroy();
  });
  outgoing.on('close', () => upstream.destroy());
  upstream.end(body);
}

export async function startRoundRobin(targets) {
  let next = 0;
  const server = createServer((incoming, outgoing) => {
    const first = next++;
    const chunks = [];
    incoming.on('data', (chunk) => chunks.push(chunk));
    incoming.on('end', () => forward(incoming, outgoing, Buffer.concat(chunks), targets, first));
  });
  // Thousands of payers may connect in the same instant: a backlog for them all (the kernel caps it at somaxconn).
  await new Promise((resolve) => server.listen(0, '127.0.0.1', 4096, resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

// Run as a process of its own (as a load balancer is): `fork('scripts/round-robin-proxy.mjs')`; it sends
// `{ url }` once it listens, takes `{ targets }` whenever they are known, and stops on SIGTERM.
if (import.meta.url === `file://${process.argv[1]}` && process.send) {
  const targets = [];
  const proxy = await startRoundRobin(targets);
  process.on('message', (message) => {
    if (Array.isArray(message?.targets)) targets.splice(0, targets.length, ...message.targets);
  });
  process.send({ url: proxy.url });
  process.once('SIGTERM', () => proxy.close().then(() => process.exit(0)));
  process.once('disconnect', () => process.exit(0)); // the run that started it is gone
}
