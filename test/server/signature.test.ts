import { createHmac, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { hmacSha512Hex, signCallback, signRequest, verifyCallback } from '../../src/server/index.js';

const bytes = (length: number, value: number) => new Uint8Array(length).fill(value);
const ascii = (text: string) => new TextEncoder().encode(text);

// RFC 4231, section 4: HMAC-SHA-512 test cases 1-7 (case 5 is truncated to 128 bits).
const RFC_4231: { key: Uint8Array; data: Uint8Array; mac: string }[] = [
  {
    key: bytes(20, 0x0b),
    data: ascii('Hi There'),
    mac: '87aa7cdea5ef619d4ff0b4241a1d6cb02379f4e2ce4ec2787ad0b30545e17cdedaa833b7d6b8a702038b274eaea3f4e4be9d914eeb61f1702e696c203a126854',
  },
  {
    key: ascii('Jefe'),
    data: ascii('what do ya want for nothing?'),
    mac: '164b7a7bfcf819e2e395fbe73b56e0a387bd64222e831fd610270cd7ea2505549758bf75c05a994a6d034f65f8f0e6fdcaeab1a34d4a6b4b636e070a38bce737',
  },
  {
    key: bytes(20, 0xaa),
    data: bytes(50, 0xdd),
    mac: 'fa73b0089d56a284efb0f0756c890be9b1b5dbdd8ee81a3655f83e33b2279d39bf3e848279a722c806b485a47e67c807b946a337bee8942674278859e13292fb',
  },
  {
    key: Uint8Array.from({ length: 25 }, (_, index) => index + 1),
    data: bytes(50, 0xcd),
    mac: 'b0ba465637458c6990e5a8c5f61d4af7e576d97ff94b872de76f8050361ee3dba91ca5c11aa25eb4d679275cc5788063a5f19741120c4f2de2adebeb10a298dd',
  },
  { key: bytes(20, 0x0c), data: ascii('Test With Truncation'), mac: '415fad6271580a531d4179bc891d87a6' },
  {
    key: bytes(131, 0xaa),
    data: ascii('Test Using Larger Than Block-Size Key - Hash Key First'),
    mac: '80b24263c7c1a3ebb71493c1dd7be8b49b46d1f41b4aeec1121b013783f8f3526b56d037e05f2598bd0fd2215d6a1e5295e64f73f63f0aec8b915a985d786598',
  },
  {
    key: bytes(131, 0xaa),
    data: ascii(
      'This is a test using a larger than block-size key and a larger than block-size data. The key needs to be hashed before being used by the HMAC algorithm.',
    ),
    mac: 'e37b6a775dc87dbaa4dfa9f96e5e3ffddebd71f8867289865df5a32d20cdc944b6022cac3c4982b10d5eeb55c3e4de15134676fb6de0446065c97440fa8c6a58',
  },
];

const nodeHmac = (key: string | Uint8Array, data: string | Uint8Array) => createHmac('sha512', key).update(data).digest('hex');

describe('HMAC-SHA512', () => {
  it('matches the RFC 4231 test vectors', async () => {
    for (const { key, data, mac } of RFC_4231) {
      const hex = await hmacSha512Hex(key, data);
      expect(hex.slice(0, mac.length)).toBe(mac);
    }
  });
});

describe('signRequest', () => {
  const privateKey = 'OPAYPRV-sandbox-0123456789abcdef';

  it('equals node:crypto over random bytes, lowercase hex of 128 digits', async () => {
    for (let round = 0; round < 50; round++) {
      const body = new Uint8Array(randomBytes(round * 37));
      const signature = await signRequest(body, privateKey);
      expect(signature).toMatch(/^[0-9a-f]{128}$/);
      expect(signature).toBe(nodeHmac(privateKey, body));
    }
  });

  it('signs the UTF-8 bytes of a non-ASCII string, and a string equals its bytes', async () => {
    const body = '{"notify":{"notifyUserName":"منى حسن","note":"café 💳"}}';
    expect(await signRequest(body, privateKey)).toBe(nodeHmac(privateKey, Buffer.from(body, 'utf8')));
    expect(await signRequest(body, privateKey)).toBe(await signRequest(new TextEncoder().encode(body), privateKey));
  });

  it('uses the private key as UTF-8 text, whatever characters it has', async () => {
    const key = 'ключ-مفتاح-🔑';
    expect(await signRequest('{}', key)).toBe(nodeHmac(Buffer.from(key, 'utf8'), '{}'));
  });

  it('refuses an empty key instead of signing with it', async () => {
    await expect(signRequest('{}', '')).rejects.toThrow(/privateKey/);
  });
});

describe('callbacks, scheme v2', () => {
  const privateKey = 'merchant-private-key';
  const merchantId = '256612345678901';
  const now = 1_795_000_000_000;
  const body = JSON.stringify({ notifyId: 'n-1', reference: 'order-1', status: 'SUCCESS', note: 'تم الدفع' });

  async function headersFor(timestamp: string, options: { header?: string; bearer?: boolean; key?: string } = {}) {
    const signature = await signCallback(timestamp, body, options.key ?? privateKey);
    return {
      [options.header ?? 'Authorization']: options.bearer ? `Bearer ${signature}` : signature,
      MerchantId: merchantId,
      RequestTimestamp: timestamp,
    };
  }

  it('signs timestamp + body, as node:crypto does', async () => {
    expect(await signCallback(now, body, privateKey)).toBe(nodeHmac(privateKey, `${now}${body}`));
  });

  it('accepts the signature in Authorization or Signature, with or without Bearer', async () => {
    for (const header of ['Authorization', 'Signature', 'authorization', 'SIGNATURE']) {
      for (const bearer of [false, true]) {
        const headers = await headersFor(String(now), { header, bearer });
        expect(await verifyCallback({ headers, body, privateKey, merchantId, now })).toEqual({ ok: true, timestamp: now });
      }
    }
  });

  it('reads headers from a Headers object and the body as bytes', async () => {
    const headers = new Headers(await headersFor(String(now)));
    const result = await verifyCallback({ headers, body: new TextEncoder().encode(body), privateKey, now });
    expect(result.ok).toBe(true);
  });

  it('takes the timestamp in seconds or in milliseconds', async () => {
    const seconds = String(Math.floor(now / 1000));
    const result = await verifyCallback({ headers: await headersFor(seconds), body, privateKey, now });
    expect(result).toEqual({ ok: true, timestamp: Number(seconds) * 1000 });
  });

  it('rejects a tampered body, a wrong key and a wrong merchant, saying why', async () => {
    const headers = await headersFor(String(now));
    const tampered = body.replace('SUCCESS', 'FAIL');
    expect(await verifyCallback({ headers, body: tampered, privateKey, now })).toMatchObject({ ok: false, reason: 'bad-signature' });
    const forged = await headersFor(String(now), { key: 'someone-else' });
    expect(await verifyCallback({ headers: forged, body, privateKey, now })).toMatchObject({ ok: false, reason: 'bad-signature' });
    expect(await verifyCallback({ headers, body, privateKey, merchantId: '256600000000000', now })).toMatchObject({
      ok: false,
      reason: 'merchant-mismatch',
    });
  });

  it('rejects a signature that moved to another timestamp', async () => {
    const headers = await headersFor(String(now));
    const moved = { ...headers, RequestTimestamp: String(now + 1000) };
    expect(await verifyCallback({ headers: moved, body, privateKey, now })).toMatchObject({ ok: false, reason: 'bad-signature' });
  });

  it('rejects stale and future timestamps outside the tolerance, and keeps those inside', async () => {
    const at = async (timestamp: number, toleranceSeconds?: number) =>
      verifyCallback({ headers: await headersFor(String(timestamp)), body, privateKey, now, toleranceSeconds });
    expect(await at(now - 301_000)).toMatchObject({ ok: false, reason: 'stale-timestamp' });
    expect(await at(now + 301_000)).toMatchObject({ ok: false, reason: 'stale-timestamp' });
    expect((await at(now - 299_000)).ok).toBe(true);
    expect(await at(now - 61_000, 60)).toMatchObject({ ok: false, reason: 'stale-timestamp' });
  });

  it('rejects missing and malformed headers without throwing', async () => {
    const headers = await headersFor(String(now));
    const without = (name: string) => Object.fromEntries(Object.entries(headers).filter(([key]) => key !== name));
    expect(await verifyCallback({ headers: without('Authorization'), body, privateKey, now })).toMatchObject({
      reason: 'missing-signature',
    });
    expect(await verifyCallback({ headers: without('RequestTimestamp'), body, privateKey, now })).toMatchObject({
      reason: 'missing-timestamp',
    });
    expect(await verifyCallback({ headers: { ...headers, RequestTimestamp: '17e11' }, body, privateKey, now })).toMatchObject({
      reason: 'malformed-timestamp',
    });
    expect(await verifyCallback({ headers: { ...headers, Authorization: 'zz' }, body, privateKey, now })).toMatchObject({
      reason: 'malformed-signature',
    });
    const truncated = { ...headers, Authorization: headers['Authorization']!.slice(0, 126) };
    expect(await verifyCallback({ headers: truncated, body, privateKey, now })).toMatchObject({ reason: 'malformed-signature' });
  });

  it('refuses a tolerance that is not a positive number, rather than checking nothing', async () => {
    const headers = await headersFor(String(now - 365 * 86_400_000));
    await expect(verifyCallback({ headers, body, privateKey, now, toleranceSeconds: Number.NaN })).rejects.toThrow(/toleranceSeconds/);
  });

  it('accepts an uppercase hex signature', async () => {
    const headers = await headersFor(String(now));
    const upper = { ...headers, Authorization: headers['Authorization']!.toUpperCase() };
    expect((await verifyCallback({ headers: upper, body, privateKey, now })).ok).toBe(true);
  });
});
