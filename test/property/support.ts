/**
 * What the property suites share: a fixed seed (printed, and replaceable with PROPERTY_SEED to explore), a
 * tally of how many cases each property ran, raw HTTP on 127.0.0.1 that can send what fetch refuses (any
 * method, any Host, any bytes), and checks that nothing leaked onto Object.prototype.
 */
import { Agent, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import fc from 'fast-check';
import { expect } from 'vitest';

/** The seed of every property; CI runs the same cases each time. */
export const SEED = Number(process.env['PROPERTY_SEED'] ?? 20_261_122);

/** How long a property may run, shrinking included, before it reports what it has. */
const SHRINK_BUDGET_MS = 30_000;

export interface Tally {
  /**
   * Runs a property with the suite's seed and `runs` generated cases, counting every case it ran. A predicate may
   * return a label for the case (the answer it saw, say); the report counts each label.
   */
  check<T>(name: string, arbitrary: fc.Arbitrary<T>, predicate: (value: T) => void | string | Promise<void | string>, runs: number): Promise<void>;
  /** One line per property and the total, for afterAll. */
  report(): string;
}

export function tally(suite: string): Tally {
  const rows: { name: string; cases: number; labels: Map<string, number> }[] = [];
  const started = Date.now();
  return {
    async check(name, arbitrary, predicate, runs) {
      // Checks under one name add up in one row.
      let row = rows.find((candidate) => candidate.name === name);
      if (!row) {
        row = { name, cases: 0, labels: new Map<string, number>() };
        rows.push(row);
      }
      const counting = row;
      const counted = async (value: Parameters<typeof predicate>[0]) => {
        counting.cases += 1;
        const label = await predicate(value);
        if (typeof label === 'string') counting.labels.set(label, (counting.labels.get(label) ?? 0) + 1);
      };
      // A failure is shrunk for what is left of 30 s, then reported as it stands: shrinking a case that took an HTTP
      // round trip and a 16 KiB body can otherwise run for many minutes. Passing runs take a few seconds.
      await fc.assert(fc.asyncProperty(arbitrary, counted), { seed: SEED, numRuns: runs, skipAllAfterTimeLimit: SHRINK_BUDGET_MS });
    },
    report() {
      const total = rows.reduce((sum, row) => sum + row.cases, 0);
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      const lines = [`${suite}: ${total} cases in ${rows.length} properties, seed ${SEED}, ${seconds} s`];
      for (const row of rows) {
        lines.push(`  ${String(row.cases).padStart(6)}  ${row.name}`);
        const labels = [...row.labels].sort((a, b) => b[1] - a[1]).map(([label, count]) => `${label} ×${count}`);
        if (labels.length > 0) lines.push(`          ${labels.join(', ')}`);
      }
      return lines.join('\n');
    },
  };
}

// --- Hostile text and numbers -----------------------------------------------------------------------------------

const loneSurrogate = fc.integer({ min: 0xd800, max: 0xdfff }).map((unit) => String.fromCharCode(unit));
/** NUL, direction marks and overrides, BOM, separators, quotes and escapes, a combining mark, Arabic, emoji. */
const oddCharacter = fc.constantFrom(
  '\u0000', '\u0007', '\u001f', '\u007f', '\u200e', '\u200f', '\u202e', '\u2066', '\u061c', '\ufeff', '\u2028', '\u2029',
  '\u00a0', '\t', '\n', '\r', ' ', '"', '\\', '/', '%', '\u0301', 'ع', '٣', '😀', '\ufffd', '{', '}', '[', ']',
);
/** One UTF-16 code unit or code point of any kind, lone surrogates included. */
export const hostileCharacter = fc.oneof(
  { arbitrary: fc.string({ unit: 'binary-ascii', minLength: 1, maxLength: 1 }), weight: 4 },
  { arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }), weight: 3 },
  { arbitrary: oddCharacter, weight: 3 },
  { arbitrary: loneSurrogate, weight: 1 },
);
export const hostileString = fc.string({ unit: hostileCharacter, maxLength: 24 });

/** A string of 5 000 to 40 000 units with no white space, so that trimming leaves it as long. */
export const hugeString = fc
  .tuple(hostileString, fc.integer({ min: 5_000, max: 40_000 }))
  .map(([seed, length]) => {
    const unit = seed.replace(/\s/g, '') || 'x';
    return unit.repeat(Math.ceil(length / unit.length)).slice(0, length);
  });

/** Numbers that break naive checks, and strings that look like numbers. */
export const numberish = fc.oneof(
  fc.constantFrom(
    0, -0, 1, -1, 0.5, 1.0000001, 5e-324, 1e308, -1e308, Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER + 1,
    2 ** 53 + 2, -(2 ** 53), 2 ** 31, 43_200, 43_201, 1e21,
  ),
  fc.constantFrom(
    'NaN', 'Infinity', '-Infinity', '1e3', '0x10', '  12  ', '12.0', '+1', '-1', '١٢٣', '９', '0', '00000000000000001',
    '9007199254740993', '99999999999999999', '', ' ', '1_000', '١',
  ),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.integer({ min: -1_000, max: 100_000 }),
  fc.maxSafeInteger(),
);

// --- JSON text with keys JSON.stringify would never write twice, and raw number tokens ---------------------------

/** A JSON document as a tree, so that its text can carry `__proto__` keys, repeated keys and raw number tokens. */
export type JsonTree =
  | { kind: 'leaf'; text: string }
  | { kind: 'array'; items: JsonTree[] }
  | { kind: 'object'; entries: [string, JsonTree][] };

/** Keys that reach prototypes, names of real fields, and anything else. */
export const hostileKey = fc.oneof(
  fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf', '__defineGetter__'),
  fc.constantFrom('reference', 'amount', 'total', 'currency', 'payMethod', 'product', 'name', 'notify', 'country', 'orderNo', 'otp', 'pin'),
  hostileString,
);

/** Number tokens JSON allows whose values surprise: -0, beyond double range (Infinity), beyond safe integers. */
const numberToken = fc.oneof(
  fc.constantFrom('-0', '0.0', '1e308', '1e309', '-1e309', '1E-400', '9007199254740993', '123456789012345678901234567890', '2e3', '1.5'),
  numberish.filter((value): value is number => typeof value === 'number').map((value) => JSON.stringify(value)),
);

const leaf: fc.Arbitrary<JsonTree> = fc
  .oneof(
    fc.constantFrom('null', 'true', 'false'),
    numberToken,
    hostileString.map((value) => JSON.stringify(value)),
    numberish.map((value) => JSON.stringify(value)),
  )
  .map((text) => ({ kind: 'leaf' as const, text }));

export const jsonTree: fc.Arbitrary<JsonTree> = fc.letrec<{ tree: JsonTree }>((tie) => ({
  tree: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leaf,
    fc.array(tie('tree'), { maxLength: 5 }).map((items) => ({ kind: 'array' as const, items })),
    fc.array(fc.tuple(hostileKey, tie('tree')), { maxLength: 6 }).map((entries) => ({ kind: 'object' as const, entries })),
  ),
})).tree;

export function jsonText(tree: JsonTree): string {
  switch (tree.kind) {
    case 'leaf':
      return tree.text;
    case 'array':
      return `[${tree.items.map(jsonText).join(',')}]`;
    case 'object':
      return `{${tree.entries.map(([key, value]) => `${JSON.stringify(key)}:${jsonText(value)}`).join(',')}}`;
  }
}

/** JSON text of a value with extra members spliced in at the top: `__proto__`, `constructor` and the like. */
export function withMembers(value: unknown, members: [string, JsonTree][]): string {
  const text = JSON.stringify(value);
  if (members.length === 0 || !text.startsWith('{')) return text;
  const extra = members.map(([key, member]) => `${JSON.stringify(key)}:${jsonText(member)}`).join(',');
  return text === '{}' ? `{${extra}}` : `{${extra},${text.slice(1)}`;
}

/** `value` (JSON text of an object) with a member nested `depth` arrays deep. */
export function deeplyNested(objectText: string, depth: number): string {
  const deep = `${'['.repeat(depth)}${']'.repeat(depth)}`;
  return objectText === '{}' || !objectText.startsWith('{') ? `{"deep":${deep}}` : `{"deep":${deep},${objectText.slice(1)}`;
}

/** Byte sequences that are not UTF-8: a lone continuation byte, a cut sequence, an overlong form, an encoded surrogate. */
export const invalidUtf8 = fc.constantFrom(
  [0x80], [0xff], [0xc3], [0xe2, 0x82], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80], [0xfe, 0xfe],
);

/** UTF-8 bytes of `text` with an invalid sequence inserted at a point chosen by `at` (0..1). */
export function corrupt(text: string, bytes: readonly number[], at: number): Uint8Array {
  const encoded = new TextEncoder().encode(text);
  const index = Math.floor(at * encoded.length);
  const out = new Uint8Array(encoded.length + bytes.length);
  out.set(encoded.subarray(0, index), 0);
  out.set(bytes, index);
  out.set(encoded.subarray(index), index + bytes.length);
  return out;
}

// --- Raw HTTP --------------------------------------------------------------------------------------------------

export interface RawRequest {
  method: string;
  /** The request target as sent: a path, or anything else. */
  path: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  /** Send the body chunked instead of with Content-Length. */
  chunked?: boolean;
}

export interface RawAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  /** The body parsed as JSON, or undefined. */
  json: unknown;
}

const agent = new Agent({ keepAlive: true, maxSockets: 8 });

/**
 * Sends one request to `base` (http://127.0.0.1:port) exactly as given; rejects when no answer came. A kept-alive
 * connection the server closed as the request went out (ECONNRESET on a reused socket: the server never read it) is
 * tried once more on a new one, as Node's documentation advises (workerd closes idle connections so, under load).
 */
export function send(base: string, raw: RawRequest, retried = false): Promise<RawAnswer> {
  const { hostname, port } = new URL(base);
  const body = raw.body === undefined ? undefined : typeof raw.body === 'string' ? Buffer.from(raw.body, 'utf8') : Buffer.from(raw.body);
  const headers: Record<string, string> = { ...raw.headers };
  if (body !== undefined && !raw.chunked) headers['Content-Length'] = String(body.length);
  if (raw.chunked) headers['Transfer-Encoding'] = 'chunked';
  return new Promise((resolve, reject) => {
    const request = httpRequest({ host: hostname, port, method: raw.method, path: raw.path, headers, agent }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('error', reject);
      response.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        resolve({ status: response.statusCode ?? 0, headers: response.headers, text, json });
      });
    });
    request.on('error', (error: NodeJS.ErrnoException) => {
      if (!retried && request.reusedSocket && error.code === 'ECONNRESET') resolve(send(base, raw, true));
      else reject(error);
    });
    request.setTimeout(10_000, () => request.destroy(new Error(`no answer to ${raw.method} ${raw.path} within 10 s`)));
    if (body !== undefined && raw.chunked) {
      // Two chunks, so that a reader that stops at the limit sees a body arriving in parts.
      const half = Math.floor(body.length / 2);
      request.write(body.subarray(0, half));
      request.end(body.subarray(half));
    } else {
      request.end(body);
    }
  });
}

export function closeAgent(): void {
  agent.destroy();
}

// --- What must hold after every run ----------------------------------------------------------------------------

const prototypeNames = (target: object) => Object.getOwnPropertyNames(target).sort();
const objectPrototype = prototypeNames(Object.prototype);
const arrayPrototype = prototypeNames(Array.prototype);

/** Fails when anything was added to Object.prototype or Array.prototype. */
export function expectPrototypesClean(): void {
  expect(prototypeNames(Object.prototype)).toEqual(objectPrototype);
  expect(prototypeNames(Array.prototype)).toEqual(arrayPrototype);
  const probe: Record<string, unknown> = {};
  for (const key of ['polluted', 'status', 'isAdmin', 'reference', 'payMethod']) expect(probe[key]).toBeUndefined();
}

/** Collects unhandled rejections and uncaught exceptions while a suite runs. */
export function watchUnhandled(): { problems: unknown[]; stop(): void } {
  const problems: unknown[] = [];
  const record = (error: unknown) => problems.push(error);
  process.on('unhandledRejection', record);
  process.on('uncaughtException', record);
  return {
    problems,
    stop() {
      process.off('unhandledRejection', record);
      process.off('uncaughtException', record);
    },
  };
}
