// What a documented program runs with (node --import), and nothing else (docs/README.md, "Code samples"):
//
// - every server it starts listens on a free port of 127.0.0.1, whatever it asked for; the runner hears of each
//   (the port asked for, the port got) over the IPC channel;
// - the sandbox's default address, http://127.0.0.1:4010 (what `environment: 'sandbox'` means), is the runner's
//   sandbox for this program (SVC_SAMPLE_SANDBOX), for fetch and for node:http alike.
import http from 'node:http';
import { syncBuiltinESMExports } from 'node:module';
import net from 'node:net';

// The channel to the runner must not keep a program that has finished alive.
process.channel?.unref();

const sandbox = new URL(process.env.SVC_SAMPLE_SANDBOX);
const DEFAULT_HOSTS = new Set(['127.0.0.1:4010', 'localhost:4010']);

/** `url`, at the program's sandbox when it names the sandbox's default address. */
function toSandbox(url) {
  if (!DEFAULT_HOSTS.has(url.host)) return url;
  const moved = new URL(url);
  moved.host = sandbox.host;
  return moved;
}

const fetchAsWritten = globalThis.fetch;
globalThis.fetch = (input, init) => {
  if (input instanceof Request) return fetchAsWritten(new Request(toSandbox(new URL(input.url)), input), init);
  return fetchAsWritten(toSandbox(new URL(String(input))), init);
};

/** node:http's request and get, with `options` (or a URL) moved to the program's sandbox. */
function redirected(original) {
  return function (...args) {
    if (typeof args[0] === 'string' || args[0] instanceof URL) args[0] = toSandbox(new URL(String(args[0])));
    else if (args[0] && typeof args[0] === 'object') {
      const options = args[0];
      const host = `${options.hostname ?? options.host ?? 'localhost'}:${options.port ?? 80}`;
      if (DEFAULT_HOSTS.has(host)) args[0] = { ...options, hostname: sandbox.hostname, host: undefined, port: sandbox.port };
    }
    return original.apply(this, args);
  };
}
http.request = redirected(http.request);
http.get = redirected(http.get);

const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  const callback = typeof args.at(-1) === 'function' ? args.pop() : undefined;
  const first = args[0];
  const asked = typeof first === 'object' && first !== null ? Number(first.port ?? 0) : Number(first ?? 0);
  this.once('listening', () => process.send?.({ listening: { asked: Number.isFinite(asked) ? asked : 0, port: this.address().port } }));
  return callback ? listen.call(this, 0, '127.0.0.1', callback) : listen.call(this, 0, '127.0.0.1');
};

syncBuiltinESMExports();
