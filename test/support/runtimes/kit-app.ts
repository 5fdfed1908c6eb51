/**
 * The merchant kit as every runtime suite runs it: one handler with the same options wherever it runs (Node under
 * toNodeListener, Deno, Bun, workerd, the Edge Runtime), and a few routes under /__runner/ through which the Node
 * test reads what the kit did in there (the callbacks it handled) and calls the kit's functions in that runtime.
 *
 * No Node module, no runtime's own API: only the Web platform and the kit, so that the same file runs everywhere.
 */
import * as kit from '../../../src/server/index.js';
import { nodeCrypto, nodeDiagnostics, nodeHttp } from '../../../src/server/runtime/modules.js';

export interface KitAppConfig {
  merchantId: string;
  privateKey: string;
  /** The service (the sandbox, or a recording proxy in front of it). */
  baseUrl: string;
  callbackUrl?: string | false;
  /** A fixed clock (ms), so that two kits issue the same tokens; the real clock when absent. */
  now?: number;
  /** `streams` options of the kit (`false`: off). */
  streams?: kit.StreamOptions | false;
  /** Subscribe to the kit's tracing channels, where the runtime has node:diagnostics_channel (/__runner/traces). */
  channels?: boolean;
}

/** What a trace on each channel says, in a line, as it ends. */
const SUMMARIES: Record<string, (context: Record<string, unknown>) => string> = {
  [kit.CHANNELS.service]: (context) => `${context['operation']} ${context['status']} ${context['code']}`,
  [kit.CHANNELS.request]: (context) => `${context['route']} ${context['outcome']}`,
  [kit.CHANNELS.callback]: (context) => `${context['source']} ${context['outcome']}`,
  [kit.CHANNELS.stream]: (context) => `closed ${context['reason']}`,
};

/** One handled callback, as the runner reports it. */
export interface HandledCallback {
  notifyId: string;
  orderNo: string;
  status: string;
}

/** The kit's functions a test may call inside the runtime, by name, with JSON arguments. */
const CALLABLE = {
  issueCheckoutToken: kit.issueCheckoutToken,
  verifyCheckoutToken: kit.verifyCheckoutToken,
  issueOrderToken: kit.issueOrderToken,
  verifyOrderToken: kit.verifyOrderToken,
  signRequest: kit.signRequest,
  signCallback: kit.signCallback,
  verifyCallback: kit.verifyCallback,
  createPaymentLink: kit.createPaymentLink,
  readPaymentLink: kit.readPaymentLink,
} as const;

export type CallableName = keyof typeof CALLABLE;

const json = (value: unknown, status = 200) => new Response(JSON.stringify(value), { status, headers: { 'Content-Type': 'application/json' } });

export interface KitApp {
  /** The merchant handler, as a shop mounts it. */
  handler: kit.MerchantHandler;
  /** The /__runner/ routes. */
  runner(request: Request): Promise<Response>;
  /** Both: /__runner/ to the runner, everything else to the handler. */
  serve(request: Request): Promise<Response>;
}

export function createKitApp(config: KitAppConfig, runtime: string): KitApp {
  const handled: HandledCallback[] = [];
  const logged: string[] = [];
  const traces: string[] = [];
  if (config.channels && nodeDiagnostics) {
    for (const [name, summary] of Object.entries(SUMMARIES)) {
      nodeDiagnostics.tracingChannel(name).subscribe({
        start: () => undefined,
        end: () => undefined,
        asyncStart: () => undefined,
        error: () => undefined,
        asyncEnd: (context: Record<string, unknown>) => traces.push(`${name} ${summary(context)}`),
      });
    }
  }
  const now = config.now === undefined ? Date.now : () => config.now as number;
  const handler = kit.createMerchantHandler({
    merchantId: config.merchantId,
    privateKey: config.privateKey,
    environment: { baseUrl: config.baseUrl },
    ...(config.callbackUrl !== undefined ? { callbackUrl: config.callbackUrl } : {}),
    merchantName: 'Nile Coffee Roasters',
    // Where the fixtures' bank account payers come back to.
    returnUrlOrigins: ['https://shop.example'],
    retryDelayMs: 1,
    now,
    // As a shop behind a proxy reads it; the same on every runtime (only toNodeListener knows a socket).
    clientAddress: (request) => request.headers.get('x-client-address') ?? '198.51.100.1',
    // The generated requests are weighed one by one; the limits have their own suites. Status queries are not shared
    // (a workerd request asks for itself: docs/limits.md), not even with a stream's own check in flight.
    limits: Object.fromEntries(Object.keys(kit.LIMIT_TABLE).map((name) => [name, false])),
    statusSharedMs: false,
    ...(config.streams === undefined ? {} : { streams: config.streams }),
    logger: { warn: () => undefined, error: (line: string) => logged.push(line) },
    onCallback: ({ notifyId, body }) => {
      handled.push({ notifyId, orderNo: body.orderNo, status: body.status });
    },
  });
  const about = {
    runtime,
    signsWith: nodeCrypto ? 'node:crypto' : 'WebCrypto',
    callsWith: nodeHttp ? 'node:http' : 'fetch',
    channels: nodeDiagnostics ? 'node:diagnostics_channel' : 'none',
  };

  async function runner(request: Request): Promise<Response> {
    const { pathname } = new URL(request.url);
    if (pathname === '/__runner/about') return json(about);
    if (pathname === '/__runner/callbacks') return json(handled);
    if (pathname === '/__runner/errors') return json(logged);
    if (pathname === '/__runner/traces') return json(traces);
    if (pathname === '/__runner/call' && request.method === 'POST') {
      const { name, args } = (await request.json()) as { name: CallableName; args: unknown[] };
      const call = CALLABLE[name] as ((...values: unknown[]) => unknown) | undefined;
      if (!call) return json({ error: `no function ${name}` }, 404);
      try {
        return json({ value: await call(...args) });
      } catch (error) {
        return json({ thrown: { name: (error as Error).name, message: (error as Error).message } });
      }
    }
    return json({ error: 'no such runner route' }, 404);
  }

  return {
    handler,
    runner,
    serve: (request) => (new URL(request.url).pathname.startsWith('/__runner/') ? runner(request) : handler(request)),
  };
}
