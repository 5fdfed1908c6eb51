/**
 * Node's own modules, where the runtime has them. The kit signs with node:crypto and calls the service over a
 * keep-alive node:http(s) pool there, and with WebCrypto and fetch anywhere else (serverless and edge runtimes).
 *
 * They are looked up once, through `process.getBuiltinModule` (Node ≥ 20.16, Bun, Deno): no `import` of
 * `node:*` that a bundler for an edge runtime would have to resolve. Elsewhere, or on an older Node, nothing is
 * found and the Web path is taken: the same answers, only slower.
 *
 * The types below are the few members the kit uses, written out so that its types need no `@types/node`.
 */

export interface NodeHmac {
  update(data: string | Uint8Array): NodeHmac;
  digest(): Uint8Array;
  digest(encoding: 'hex'): string;
}

export interface NodeCrypto {
  createHmac(algorithm: 'sha512', key: string | Uint8Array): NodeHmac;
  createHash(algorithm: 'sha256' | 'sha384'): { update(data: Uint8Array): { digest(encoding: 'base64'): string } };
}

/** What the kit reads of a folder: the element's CDN files (src/server/element/element-files.ts). */
export interface NodeFs {
  readFileSync(path: URL): Uint8Array<ArrayBuffer>;
  readdirSync(path: URL, options: { withFileTypes: true }): { name: string; isFile(): boolean }[];
}

export interface NodeIncoming {
  statusCode?: number | undefined;
  headers: Record<string, string | string[] | undefined>;
  socket: NodeSocket | null;
  complete: boolean;
  on(event: 'data', listener: (chunk: Uint8Array) => void): unknown;
  on(event: 'end', listener: () => void): unknown;
  on(event: 'error' | 'aborted', listener: (error?: Error) => void): unknown;
  on(event: 'close', listener: () => void): unknown;
  resume(): unknown;
}

export interface NodeOutgoing {
  on(event: 'error', listener: (error: Error) => void): unknown;
  end(body: string): unknown;
  destroy(error?: Error): unknown;
}

export interface NodeRequestOptions {
  protocol: string;
  hostname: string;
  port: string | undefined;
  path: string;
  method: 'POST';
  headers: Record<string, string | number>;
  agent: unknown;
}

export interface NodeSocket {
  timeout?: number | undefined;
  setTimeout(ms: number): unknown;
  setKeepAlive(enable: boolean, initialDelayMs: number): unknown;
  unref(): unknown;
  /** What the kit's pool notes on a connection (src/server/service/transport.ts). */
  [note: symbol]: unknown;
}

export interface NodeAgent {
  keepSocketAlive(socket: NodeSocket): boolean;
}

export interface NodeHttp {
  request(options: NodeRequestOptions, onResponse: (response: NodeIncoming) => void): NodeOutgoing;
  Agent: new (options: { keepAlive: boolean; timeout?: number; scheduling?: 'fifo' | 'lifo' }) => NodeAgent;
}

/** A channel of node:diagnostics_channel, as the kit publishes on it. */
export interface NodeChannel {
  readonly hasSubscribers: boolean;
  publish(message: unknown): void;
}

/**
 * A tracing channel: `tracePromise` publishes `start` and `end` around the call, then `asyncStart` and `asyncEnd` when
 * its promise settles (`error` before them when it rejects), each with the same context object. `hasSubscribers` is
 * missing in Bun: then the five channels say.
 */
export interface NodeTracingChannel {
  readonly hasSubscribers?: boolean;
  readonly start: NodeChannel;
  readonly end: NodeChannel;
  readonly asyncStart: NodeChannel;
  readonly asyncEnd: NodeChannel;
  readonly error: NodeChannel;
  tracePromise<T>(work: () => Promise<T>, context: object): Promise<T>;
  subscribe(handlers: Record<'start' | 'end' | 'asyncStart' | 'asyncEnd' | 'error', (context: any) => void>): void;
}

export interface NodeDiagnosticsChannel {
  channel(name: string): NodeChannel;
  tracingChannel(name: string): NodeTracingChannel;
}

/** The members of Node's Buffer the kit uses (Node, Bun and Deno all have it, as a global). */
export interface NodeBuffer {
  byteLength(text: string): number;
  from(text: string, encoding: 'utf8'): { toString(encoding: 'base64url'): string };
  from(buffer: ArrayBufferLike, offset: number, length: number): { toString(encoding: 'base64url'): string };
}

type BuiltinLookup = (id: string) => unknown;

function builtin<T>(id: string): T | undefined {
  const lookup = (globalThis as { process?: { getBuiltinModule?: BuiltinLookup } }).process?.getBuiltinModule;
  if (typeof lookup !== 'function') return undefined;
  try {
    return (lookup(id) as T | undefined) ?? undefined;
  } catch {
    return undefined;
  }
}

/** node:crypto, or undefined: then WebCrypto signs. */
export const nodeCrypto = builtin<NodeCrypto>('node:crypto');

/** node:fs, or undefined: then the kit serves no files (the element's are served as static files instead). */
export const nodeFs = builtin<NodeFs>('node:fs');

/** node:http and node:https, or undefined: then fetch carries the calls to the service. */
export const nodeHttp = builtin<NodeHttp>('node:http');
export const nodeHttps = builtin<NodeHttp>('node:https');

/**
 * node:diagnostics_channel, or undefined (the Edge Runtime, workerd without nodejs_compat, Node before 20.16): then the
 * kit has no channels and publishes nothing (src/server/observability/channels.ts).
 */
export const nodeDiagnostics = builtin<NodeDiagnosticsChannel>('node:diagnostics_channel');

/** Node's Buffer, or undefined: then the kit's own code measures and encodes text. */
export const nodeBuffer = (globalThis as { Buffer?: NodeBuffer }).Buffer;

/**
 * Whether one request's I/O must stay within it, as in Cloudflare's workerd: a request whose response stream
 * another request writes to, or that waits for a status query another request started, is cancelled as hung. There
 * each status stream gets status queries of its own (handler.ts).
 */
export const requestScopedIo = (globalThis as { navigator?: { userAgent?: unknown } }).navigator?.userAgent === 'Cloudflare-Workers';

const encoder = new TextEncoder();

/** UTF-8 length of a string, without encoding it where Node's Buffer is there (it is, wherever node:http is). */
export function byteLength(text: string): number {
  return nodeBuffer ? nodeBuffer.byteLength(text) : encoder.encode(text).length;
}
