/**
 * The merchant kit in a real runtime against the same kit on Node (toNodeListener, node:crypto, the keep-alive
 * pool), each in front of its own real sandbox on loopback: the same requests, sent to both in turn, must get the
 * same answers, make the kits send the sandbox the same bytes, and leave both sandboxes (whose order numbers,
 * reference codes and notifyIds are counters) in the same state. Each runtime's file calls `describeConformance`
 * once: one runtime, started once, per file.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHECKOUT_TOKEN_HEADER, MERCHANT_PATHS, ORDER_TOKEN_HEADER } from '../../../src/core/index.js';
import * as nodeKit from '../../../src/server/index.js';
import { bankAccountRequest, posRequest, referenceCodeRequest } from '../../core/fixtures.js';
import { shapeNamed } from '../../property/requests.js';
import { closeAgent, jsonText, jsonTree, send, tally, type RawAnswer, type RawRequest } from '../../property/support.js';
import { listen } from '../fake-service.js';
import { caseOf, credentials, proofHeaders, seen } from '../kit-cases.js';
import { orderOf } from '../tokens.js';
import { createKitApp, type CallableName, type HandledCallback, type KitAppConfig } from './kit-app.js';
import { startRecordedSandbox, type RecordedSandbox } from './recorded-sandbox.js';
import { startRuntime, type RuntimeName } from './start.js';

interface Side {
  url: string;
  service: RecordedSandbox;
  stop(): Promise<void>;
}

export interface RuntimeTraits {
  /** How the kit signs and calls the service there: Node's modules where the runtime has them, else the Web's. */
  signsWith: 'node:crypto' | 'WebCrypto';
  callsWith: 'node:http' | 'fetch';
  /** Whether the kit publishes its diagnostics channels there: where the runtime has node:diagnostics_channel. */
  channels: 'node:diagnostics_channel' | 'none';
}

/** What the service received since a point: path, signature, merchant and the exact bytes. */
const sentSince = (side: Side, from: number) => side.service.requests.slice(from);

/** A page's answer as a browser sees it. */
const pageSeen = (answer: RawAnswer) => ({ ...seen(answer), csp: answer.headers['content-security-policy'] });

export function describeConformance(name: RuntimeName, traits: RuntimeTraits): void {
  const cases = tally(`${name} against Node`);
  let now: number;
  let node: Side;
  let runtime: Side;
  /** Real orders (made through both kits in beforeAll), with the order token both issued. */
  const orders: { kind: string; orderNo: string; token: string }[] = [];

  /** Sends `raw` to the Node kit, then to the runtime's; both must answer alike and send the service the same bytes. */
  async function both(raw: RawRequest): Promise<RawAnswer> {
    const before = [node.service.requests.length, runtime.service.requests.length] as const;
    const expected = await send(node.url, raw);
    const actual = await send(runtime.url, raw);
    // Connection: close on a 413 is the Node adapter's own (it stops reading); elsewhere the server decides.
    expect({ ...seen(actual), closes: undefined }, `${raw.method} ${raw.path}`).toEqual({ ...seen(expected), closes: undefined });
    expect(sentSince(runtime, before[1])).toEqual(sentSince(node, before[0]));
    return expected;
  }

  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    both({ method: 'POST', path, headers: { 'Content-Type': 'application/json', Host: 'shop.example', ...headers }, body: JSON.stringify(body) });

  /** A create through both kits with the checkout token the shop's server renders for it; its order and token. */
  async function create(body: Record<string, unknown>) {
    const token = await nodeKit.issueCheckoutToken(credentials, orderOf(body), { now });
    const answer = await post(MERCHANT_PATHS.create, body, { [CHECKOUT_TOKEN_HEADER]: token });
    const data = (answer.json as { code: string; data: { orderNo: string; referenceCode?: string } }).data;
    return { orderNo: data.orderNo, referenceCode: data.referenceCode, token: String(answer.headers[ORDER_TOKEN_HEADER.toLowerCase()]), checkoutToken: token };
  }

  const onBoth = <T>(work: (side: Side) => Promise<T>) => Promise.all([work(node), work(runtime)]);
  const handled = async (side: Side) => (await (await fetch(`${side.url}/__runner/callbacks`)).json()) as HandledCallback[];
  const callInRuntime = async (fn: CallableName, ...args: unknown[]) => {
    const response = await fetch(`${runtime.url}/__runner/call`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ name: fn, args }) });
    const reply = (await response.json()) as { value?: unknown; thrown?: { name: string } };
    return reply.thrown ? { thrown: reply.thrown.name } : reply.value;
  };
  /** What Node's kit returns, as the runtime's would come back: through JSON. */
  const onNode = async (value: Promise<unknown>) => JSON.parse(JSON.stringify(await value)) as unknown;

  beforeAll(async () => {
    // Whole seconds: the proxies date the service's answers at this second, so the order tokens' clock offset is 0.
    now = Math.floor(Date.now() / 1000) * 1000;
    // No callback address in either kit's orders: the recorded sandboxes call each kit at their merchant's webhook (against
    // a service on this machine, a kit would name its own address otherwise, which differs between the two).
    const config = (service: RecordedSandbox): KitAppConfig => ({ ...credentials, baseUrl: service.url, callbackUrl: false, now });
    const nodeService = await startRecordedSandbox(credentials, now);
    const app = createKitApp(config(nodeService), 'node');
    const kitListener = nodeKit.toNodeListener(app.handler);
    const runnerListener = nodeKit.toNodeListener(app.runner);
    const nodeServer = await listen((request, response) => (request.url?.startsWith('/__runner/') ? runnerListener : kitListener)(request, response));
    nodeService.deliverTo(`${nodeServer.url}${MERCHANT_PATHS.callbacks}`);
    node = { url: nodeServer.url, service: nodeService, stop: () => nodeServer.close() };

    const runtimeService = await startRecordedSandbox(credentials, now);
    // Traced there where it can be (every channel subscribed), untraced on Node: the answers and bytes must not differ.
    const started = await startRuntime(name, { ...config(runtimeService), channels: true });
    runtimeService.deliverTo(`${started.url}${MERCHANT_PATHS.callbacks}`);
    runtime = { url: started.url, service: runtimeService, stop: () => started.stop() };

    for (const [kind, body] of [
      ['OTP', bankAccountRequest({ reference: 'real-otp', bankAccountNumber: '2215381176' })],
      ['PIN', bankAccountRequest({ reference: 'real-pin', bankAccountNumber: '2215381183' })],
      ['3-D Secure', bankAccountRequest({ reference: 'real-3ds', bankAccountNumber: '2215381200' })],
      ['Pos', posRequest({ reference: 'real-pos' })],
    ] as const) {
      const made = await create(body);
      orders.push({ kind, orderNo: made.orderNo, token: made.token });
    }
  }, 60_000);

  afterAll(async () => {
    console.log(cases.report());
    closeAgent();
    await runtime?.stop();
    await node?.stop();
    await runtime?.service.close();
    await node?.service.close();
  });

  describe(`the kit in ${name}, against the same kit on Node`, () => {
    it(`runs there, signing with ${traits.signsWith} and calling the service with ${traits.callsWith}`, async () => {
      expect(await (await fetch(`${runtime.url}/__runner/about`)).json()).toEqual({ runtime: name, ...traits });
      expect(orders.map((order) => order.token)).toEqual(orders.map(() => expect.stringMatching(/^ot1\./)));
    });

    it(
      traits.channels === 'none'
        ? 'publishes no diagnostics channel there (the runtime has no node:diagnostics_channel), and runs all the same'
        : 'publishes its diagnostics channels there: a status query traced as the element’s call and as the call to the service',
      async () => {
        const traced = async () => (await (await fetch(`${runtime.url}/__runner/traces`)).json()) as string[];
        const before = (await traced()).length;
        const answer = await post(MERCHANT_PATHS.status, {}, { [ORDER_TOKEN_HEADER]: orders[3]!.token });
        expect((answer.json as { code: string }).code).toBe('00000');
        const traces = (await traced()).slice(before);
        if (traits.channels === 'none') expect(traces).toEqual([]);
        else expect(traces).toEqual(['svc-checkout:service status 200 00000', 'svc-checkout:request status ok']);
      },
    );

    it('issues and checks the same checkout and order tokens', async () => {
      const shapes = ['Pos create', 'BankAccount create', 'ReferenceCode create'].map((shape) => shapeNamed(shape).valid);
      await cases.check(
        'tokens issued and checked in the runtime and on Node',
        fc.tuple(fc.oneof(...shapes), fc.integer({ min: -7_200, max: 7_200 }), fc.integer({ min: 0, max: 80 })),
        async ([body, skewSeconds, cut]) => {
          const order = orderOf(body);
          const expected = await onNode(nodeKit.issueCheckoutToken(credentials, order, { now }).catch((error: Error) => ({ thrown: error.name })));
          const issued = await callInRuntime('issueCheckoutToken', credentials, order, { now });
          expect(issued).toEqual(expected);
          if (typeof expected !== 'string') return 'refused order';
          const later = now + skewSeconds * 1000;
          const altered = `${expected.slice(0, cut)}${expected.slice(cut + 1)}`;
          for (const token of [expected, altered]) {
            expect(await callInRuntime('verifyCheckoutToken', token, credentials, later)).toEqual(await onNode(nodeKit.verifyCheckoutToken(token, credentials, later)));
          }
          const claims = { merchantId: credentials.merchantId, orderNo: `ORD${cut}`, reference: order.reference, country: order.country, expiresAt: Math.floor(now / 1000) + 600, clockOffset: skewSeconds };
          const orderToken = await callInRuntime('issueOrderToken', credentials.privateKey, claims);
          expect(orderToken).toBe(await nodeKit.issueOrderToken(credentials.privateKey, claims));
          expect(await callInRuntime('verifyOrderToken', orderToken, credentials, later)).toEqual(await onNode(nodeKit.verifyOrderToken(orderToken, credentials, later)));
          return 'issued';
        },
        60,
      );
    });

    it('makes and opens payment links as on Node: a link made on either side opens on both, altered on neither', async () => {
      const order = { reference: 'link-runtime', amount: { total: 12_500, currency: 'EGP' }, country: 'EG', product: { name: 'Coffee beans', description: 'Ethiopian' }, payer: { name: 'Mona Adel', email: 'mona@example.com' } };
      const options = { shopUrl: 'https://shop.example', now };
      const made = [(await callInRuntime('createPaymentLink', credentials, order, options)) as { link: string; url: string }, await nodeKit.createPaymentLink(credentials, order, options)];
      for (const { link, url } of made) {
        expect(url).toBe(`https://shop.example/checkout/pay/${link}`);
        const opened = await onNode(nodeKit.readPaymentLink(link, credentials, now));
        expect(opened).toMatchObject({ ok: true, claims: { order: { reference: 'link-runtime' }, payer: { name: 'Mona Adel', email: 'mona@example.com' } } });
        expect(await callInRuntime('readPaymentLink', link, credentials, now)).toEqual(opened);
        const altered = `${link.slice(0, 20)}${link[20] === 'A' ? 'B' : 'A'}${link.slice(21)}`;
        expect(await callInRuntime('readPaymentLink', altered, credentials, now)).toEqual({ ok: false, reason: 'forged' });
      }
    });

    it('answers generated requests to the element routes as on Node, and sends the service the same bytes', async () => {
      await cases.check(
        'element routes, generated',
        fc.tuple(
          // What a server passes to its handler as it came: origin-form targets, and methods fetch can carry. Node's
          // adapter answers TRACE itself (405 whatever the path), Deno, Bun and workerd pass it to the handler (404 on
          // a path it does not serve), the Edge Runtime's server answers 200 with nothing.
          caseOf.filter((generated) => /^\/(?!\/)[^#]*$/.test(generated.path) && generated.method !== 'TRACE'),
          fc.nat(),
        ),
        async ([generated, pick]) => {
          const headers: Record<string, string> = { ...generated.headers, ...(await proofHeaders(generated.proof, generated.body, now)), Host: 'shop.example' };
          // Most order tokens name a real order (waiting for an OTP, a PIN, a 3-D Secure return or a swipe).
          if (generated.proof === 'order token' && pick % 4 !== 0) headers[ORDER_TOKEN_HEADER] = orders[pick % orders.length]!.token;
          if (generated.contentType) headers['Content-Type'] = generated.contentType;
          const answer = await both({ method: generated.method, path: generated.path, headers, body: generated.body, chunked: generated.chunked });
          return `${answer.status} ${(answer.json as { code?: string } | undefined)?.code ?? ''}`.trim();
        },
        200,
      );
    });

    it('takes codes as on Node: a wrong OTP, a resend, the right OTP; a wrong PIN, the right PIN; status by order token and by reference', async () => {
      const otp = await create(bankAccountRequest({ reference: 'codes-otp', bankAccountNumber: '2215381176' }));
      const codes: string[] = [];
      const call = async (path: string, body: unknown, headers: Record<string, string>) => {
        const answer = await post(path, body, headers);
        codes.push(`${path} ${(answer.json as { code: string }).code}`);
        return answer.json as { code: string; data: { status?: string } };
      };
      await call(MERCHANT_PATHS.otp, { otp: '00000000' }, { [ORDER_TOKEN_HEADER]: otp.token });
      await call(MERCHANT_PATHS.resendOtp, {}, { [ORDER_TOKEN_HEADER]: otp.token });
      expect((await call(MERCHANT_PATHS.otp, { otp: '11315632' }, { [ORDER_TOKEN_HEADER]: otp.token })).data.status).toBe('SUCCESS');
      const pin = await create(bankAccountRequest({ reference: 'codes-pin', bankAccountNumber: '2215381183' }));
      await call(MERCHANT_PATHS.pin, { pin: '9999' }, { [ORDER_TOKEN_HEADER]: pin.token });
      expect((await call(MERCHANT_PATHS.pin, { pin: '1234' }, { [ORDER_TOKEN_HEADER]: pin.token })).data.status).toBe('SUCCESS');
      expect((await call(MERCHANT_PATHS.status, {}, { [ORDER_TOKEN_HEADER]: pin.token })).data.status).toBe('SUCCESS');
      expect((await call(MERCHANT_PATHS.status, { reference: 'codes-otp' }, { [CHECKOUT_TOKEN_HEADER]: otp.checkoutToken })).data.status).toBe('SUCCESS');
      const code = await create(referenceCodeRequest({ reference: 'codes-reference' }));
      expect(code.referenceCode).toMatch(/^\d{9}$/);
      expect(codes.map((line) => line.split(' ')[1])).toEqual(['02001', '00000', '00000', '02001', '00000', '00000', '00000']);
    });

    it('verifies and de-duplicates the callbacks the sandbox sends as on Node, whatever goes wrong with their delivery', async () => {
      const FAULTS = ['none', 'duplicate', 'badSignature', 'tamper', 'staleTimestamp', 'invalidBody'] as const;
      const before = (await handled(node)).length;
      const made: string[] = [];
      for (const fault of FAULTS) {
        const order = await create(posRequest({ reference: `callback-${fault}`, sn: `SN-CALLBACK-${fault}` }));
        made.push(order.orderNo);
        if (fault !== 'none') await onBoth((side) => side.service.control.addDeliveryFault({ kind: fault, count: 1, orderNo: order.orderNo }));
        await onBoth((side) => side.service.control.complete(order.orderNo, { status: 'SUCCESS' }));
        const attempts = fault === 'duplicate' ? 2 : 1;
        const seenBy = await onBoth(async (side) => {
          const deadline = Date.now() + 10_000;
          for (;;) {
            const sent = await side.service.control.callbacks({ orderNo: order.orderNo });
            if (sent.length >= attempts && sent.every((attempt) => attempt.status !== null)) {
              return sent.map(({ notifyId, attempt, trigger, fault: met, status, headers }) => ({ notifyId, attempt, trigger, fault: met, status, signed: 'Authorization' in headers || 'authorization' in headers }));
            }
            if (Date.now() > deadline) throw new Error(`no callback for ${order.orderNo} (${fault}) reached the kit`);
            await new Promise((resolve) => setTimeout(resolve, 20));
          }
        });
        expect(seenBy[1], fault).toEqual(seenBy[0]);
        expect(seenBy[0].map((attempt) => attempt.status), fault).toEqual(fault === 'none' || fault === 'duplicate' ? [200, 200].slice(0, attempts) : [fault === 'invalidBody' ? 400 : 401]);
      }
      // The first delivery's exact bytes and headers again, as an eavesdropper would send them: a duplicate.
      const first = (await node.service.control.callbacks()).find((attempt) => attempt.status === 200)!;
      const replayed = await onBoth((side) => side.service.control.replayCallback(first.notifyId));
      expect(replayed.map((attempt) => attempt.status)).toEqual([200, 200]);
      const [onNodeKit, inRuntime] = await onBoth(handled);
      expect(inRuntime).toEqual(onNodeKit);
      // Handled once each: the callbacks delivered plainly and twice; the refused ones wait for the sandbox's retry.
      expect(onNodeKit.slice(before).map((event) => event.orderNo)).toEqual(made.slice(0, 2));
      expect(new Set(onNodeKit.map((event) => event.notifyId)).size).toBe(onNodeKit.length);
    });

    it('answers generated callbacks as on Node: signatures, timestamps, merchants, bodies, repeats', async () => {
      const bodies = fc.oneof(
        { arbitrary: fc.tuple(shapeNamed('callback body').valid, fc.constantFrom('n-1', 'n-2', 'n-3')).map(([body, notifyId]) => JSON.stringify({ ...body, notifyId })), weight: 4 },
        { arbitrary: jsonTree.map(jsonText), weight: 1 },
      );
      await cases.check(
        'callbacks, generated and signed here',
        fc.record({
          body: bodies,
          key: fc.constantFrom(credentials.privateKey, credentials.privateKey, 'another-key'),
          header: fc.constantFrom('Authorization', 'Signature'),
          bearer: fc.boolean(),
          skewSeconds: fc.constantFrom(0, 0, -299, 301, -400, Number.NaN),
          merchant: fc.constantFrom(credentials.merchantId, credentials.merchantId, '256600000000000', undefined),
        }),
        async ({ body, key, header, bearer, skewSeconds, merchant }) => {
          const timestamp = Number.isNaN(skewSeconds) ? 'yesterday' : String(now + skewSeconds * 1000);
          const signature = await nodeKit.signCallback(timestamp, body, key);
          const headers: Record<string, string> = { 'Content-Type': 'application/json', Host: 'shop.example', RequestTimestamp: timestamp, [header]: `${bearer ? 'Bearer ' : ''}${signature}` };
          if (merchant) headers['MerchantId'] = merchant;
          const answer = await both({ method: 'POST', path: MERCHANT_PATHS.callbacks, headers, body });
          return String(answer.status);
        },
        120,
      );
      const [onNodeKit, inRuntime] = await onBoth(handled);
      expect(inRuntime).toEqual(onNodeKit);
    });

    it('leaves both sandboxes with the same orders, each where the other is', async () => {
      const book = async (side: Side) =>
        // Everything but the times (each sandbox's own clock): what happened to each order, in order, included.
        (await side.service.control.orders()).map(({ createdAt: _created, expiresAt: _expires, updatedAt: _updated, ...order }) => ({
          ...order,
          life: order.life.map(({ at: _at, ...entry }) => entry),
        }));
      const [onNodeSide, inRuntime] = await onBoth(book);
      expect(onNodeSide.length).toBeGreaterThan(orders.length);
      expect(inRuntime).toEqual(onNodeSide);
    });

    it('serves the same return page', async () => {
      for (const method of ['GET', 'HEAD', 'POST']) {
        const raw = { method, path: MERCHANT_PATHS.returnPage, headers: { Host: 'shop.example' } };
        const [expected, actual] = [await send(node.url, raw), await send(runtime.url, raw)];
        expect(pageSeen(actual), method).toEqual(pageSeen(expected));
      }
    });
  });
}
