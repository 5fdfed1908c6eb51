// docs/observability.md's samples, run as written: the subscriber that logs, and the OpenTelemetry recipe with the
// Node SDK's in-memory exporters, through a run of the kit against the sandbox and a real Redis — creates of every
// method and a refused one, a throttled resend, a payment's callback, a status stream open then closed, Redis going
// away and coming back. What the recipe records is what the page's table says.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { SpanKind } from '@opentelemetry/api';
import { AggregationTemporality, InMemoryMetricExporter, MeterProvider, PeriodicExportingMetricReader, type ResourceMetrics } from '@opentelemetry/sdk-metrics';
import { InMemorySpanExporter, NodeTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-node';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { CHECKOUT_TOKEN_HEADER, MERCHANT_PATHS, ORDER_TOKEN_HEADER } from '../../src/core/index.js';
import { DEFAULT_MERCHANT } from '../../src/sandbox/index.js';
import { connectRedis, type RedisKit } from '../../src/server/redis/connect.js';
import { bankAccountRequest, posRequest, referenceCodeRequest } from '../core/fixtures.js';
import { startRedis, type TestRedis } from '../support/redis-server.js';
import { eventually, wire, type Wired } from '../support/sandbox-fixture.js';
import { openStream } from '../support/sse.js';
import { tokenFor } from '../support/tokens.js';

const root = new URL('../../', import.meta.url).pathname;
const scratch = `${root}node_modules/.cache/svc-checkout-docs-${process.pid}/`;

/** The page's fenced blocks of JavaScript. */
function jsBlocks(): string[] {
  const page = readFileSync(`${root}docs/observability.md`, 'utf8');
  return [...page.matchAll(/```js\n([\s\S]*?)```/g)].map((match) => match[1]!);
}

/** Writes a block beside the project's packages, so that its imports resolve as in a shop's project, and imports it. */
async function importBlock(name: string, code: string): Promise<Record<string, any>> {
  mkdirSync(scratch, { recursive: true });
  const file = `${scratch}${name}.mjs`;
  writeFileSync(file, code);
  return import(file);
}

const spans = new InMemorySpanExporter();
const metricExporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
const reader = new PeriodicExportingMetricReader({ exporter: metricExporter, exportIntervalMillis: 3_600_000 });
const tracerProvider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] });
const meterProvider = new MeterProvider({ readers: [reader] });
const logged: string[] = [];

let stop: () => void;
let redis: TestRedis;
let shared: RedisKit;
let wired: Wired;

beforeAll(async () => {
  const blocks = jsBlocks();
  const logging = blocks.find((code) => code.includes("tracingChannel('svc-checkout:service').subscribe"));
  const recipe = blocks.find((code) => code.includes('export function instrumentSvcCheckout'));
  expect(logging, 'the block that logs').toBeDefined();
  expect(recipe, 'the OpenTelemetry recipe').toBeDefined();
  vi.spyOn(console, 'log').mockImplementation((line: unknown) => void logged.push(String(line)));
  await importBlock('logging', logging!);
  const { instrumentSvcCheckout } = await importBlock('telemetry', recipe!);
  stop = instrumentSvcCheckout({ tracer: tracerProvider.getTracer('svc-checkout'), meter: meterProvider.getMeter('svc-checkout') });
  redis = await startRedis();
  shared = await connectRedis({ url: redis.url, merchantId: DEFAULT_MERCHANT.merchantId, commandTimeoutMs: 300, recoveryHoldMs: 0, logger: { warn: () => undefined, error: () => undefined } });
  wired = await wire({ handler: { ...shared.stores, onCallback: () => undefined } });
}, 30_000);

afterAll(async () => {
  stop?.();
  vi.restoreAllMocks();
  await wired?.close();
  await shared?.close();
  await redis?.stop();
  await tracerProvider.shutdown();
  await meterProvider.shutdown();
  rmSync(scratch, { recursive: true, force: true });
});

/** The data points of one instrument, at the moment, as `attributes → value` (a histogram's: its count). */
async function points(name: string): Promise<Record<string, number>> {
  metricExporter.reset();
  await reader.forceFlush();
  const exported: ResourceMetrics[] = metricExporter.getMetrics();
  const metric = exported.at(-1)?.scopeMetrics.flatMap((scope) => scope.metrics).find((each) => each.descriptor.name === name);
  const values: Record<string, number> = {};
  for (const point of metric?.dataPoints ?? []) {
    const value = point.value as number | { count: number };
    values[JSON.stringify(point.attributes)] = typeof value === 'number' ? value : value.count;
  }
  return values;
}

describe('docs/observability.md', () => {
  it('logs each call to the service and each call of the element, as the first sample shows', async () => {
    logged.length = 0;
    await wired.merchant(MERCHANT_PATHS.create, posRequest({ reference: 'obs-log', sn: 'SN-OBS-0' }));
    expect(logged).toEqual([expect.stringMatching(/^service create #1: 200 00000 in [\d.]+ ms$/), 'request create (Pos): ok']);
  });

  it('records the spans and metrics its table lists, with the Node SDK', async () => {
    // Creates: one of each method, one refused; a resend twice (the second throttled).
    const pos = await wired.merchant(MERCHANT_PATHS.create, posRequest({ reference: 'obs-pos', sn: 'SN-OBS-1' }));
    await wired.merchant(MERCHANT_PATHS.create, referenceCodeRequest({ reference: 'obs-code' }));
    const otp = await wired.merchant(MERCHANT_PATHS.create, bankAccountRequest({ reference: 'obs-otp' }));
    await wired.merchant(MERCHANT_PATHS.create, bankAccountRequest({ reference: 'obs-bad', dobDay: '31', dobMonth: '02' }));
    await wired.merchant(MERCHANT_PATHS.resendOtp, { orderNo: otp.data.orderNo });
    expect((await wired.merchant(MERCHANT_PATHS.resendOtp, { orderNo: otp.data.orderNo })).code).toBe('TOO_MANY_REQUESTS');

    // A payment, its callback handled; a stream, open, then closed by the payer.
    await wired.sandboxControl.swipe('SN-OBS-1');
    await eventually('the payment’s callback', () => wired.callbacks.some((event) => event.body.orderNo === pos.data.orderNo));
    const body = posRequest({ reference: 'obs-stream', sn: 'SN-OBS-2' });
    const created = await fetch(`${wired.merchantUrl}${MERCHANT_PATHS.create}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', [CHECKOUT_TOKEN_HEADER]: await tokenFor(DEFAULT_MERCHANT, body) },
      body: JSON.stringify(body),
    });
    const stream = await openStream(`${wired.merchantUrl}${MERCHANT_PATHS.events}`, { [ORDER_TOKEN_HEADER]: created.headers.get(ORDER_TOKEN_HEADER)! });
    await stream.next('status');
    expect(await points('svc_checkout.streams.open')).toEqual({ '{}': 1 });
    stream.close();
    await eventually('the stream to close', async () => (await points('svc_checkout.streams.open'))['{}'] === 0);

    expect(await points('svc_checkout.creates')).toEqual({
      '{"method":"Pos","outcome":"ok"}': 3,
      '{"method":"ReferenceCode","outcome":"ok"}': 1,
      '{"method":"BankAccount","outcome":"ok"}': 1,
      '{"method":"BankAccount","outcome":"invalid"}': 1,
    });
    expect(await points('svc_checkout.requests.throttled')).toEqual({ '{"limit":"resendOtp"}': 1 });
    const latency = await points('svc_checkout.service.duration');
    expect(latency['{"operation":"create","code":"00000"}']).toBe(5);
    expect(latency['{"operation":"resendOtp","code":"00000"}']).toBe(1);
    expect(latency['{"operation":"status","code":"00000"}']).toBeGreaterThanOrEqual(1);
    expect((await points('svc_checkout.callback.lag'))['{"source":"callback"}']).toBeGreaterThanOrEqual(1);
    expect(await points('svc_checkout.redis.up')).toEqual({ [`{"merchant":"${DEFAULT_MERCHANT.merchantId}"}`]: 1 });

    // Redis away, then back.
    await redis.kill();
    await eventually('the gauge to say Redis is away', async () => (await points('svc_checkout.redis.up'))[`{"merchant":"${DEFAULT_MERCHANT.merchantId}"}`] === 0);
    await redis.start();
    await eventually('the gauge to say Redis is back', async () => (await points('svc_checkout.redis.up'))[`{"merchant":"${DEFAULT_MERCHANT.merchantId}"}`] === 1, 10_000);

    // Spans: each create's call to the service is the child of the element's call.
    const finished = spans.getFinishedSpans();
    const request = finished.find((span) => span.name === 'svc-checkout request create' && span.attributes['svc_checkout.outcome'] === 'ok');
    const service = finished.find((span) => span.name === 'svc-checkout service create' && span.parentSpanContext?.spanId === request?.spanContext().spanId);
    expect(request?.kind).toBe(SpanKind.INTERNAL);
    expect(service?.kind).toBe(SpanKind.CLIENT);
    expect(service?.attributes).toMatchObject({ 'svc_checkout.operation': 'create', 'svc_checkout.attempt': 1, 'svc_checkout.status': 200, 'svc_checkout.code': '00000' });
    expect(finished.find((span) => span.name === 'svc-checkout request create' && span.attributes['svc_checkout.outcome'] === 'invalid')?.status.code).toBe(2);
    expect(finished.filter((span) => span.name === 'svc-checkout callback').map((span) => span.attributes['svc_checkout.outcome'])).toContain('handled');
    expect(finished.find((span) => span.name === 'svc-checkout stream')?.attributes['svc_checkout.reason']).toBe('client');
  });
});
