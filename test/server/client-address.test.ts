// The key the per-client limits count a client by: every spelling of an address gives one key, an IPv6 client is
// its /64 (or the prefix configured), an IPv4-mapped address is its IPv4 address.
import { describe, expect, it } from 'vitest';
import { clientKeyOf } from '../../src/server/index.js';

describe('clientKeyOf', () => {
  it('keeps an IPv4 address, and counts an IPv4-mapped IPv6 address as it, however written', () => {
    for (const address of ['203.0.113.9', ' 203.0.113.9 ', '::ffff:203.0.113.9', '::FFFF:203.0.113.9', '::ffff:cb00:7109', '0:0:0:0:0:ffff:cb00:7109', '[::ffff:203.0.113.9]']) {
      expect(clientKeyOf(address), address).toBe('203.0.113.9');
    }
  });

  it('counts every address of one /64 as one client, and the next /64 as another', () => {
    const home = ['2001:db8:7:1::1', '2001:0DB8:0007:0001:0000:0000:0000:0001', '2001:db8:7:1:ffff:ffff:ffff:ffff', '[2001:db8:7:1::abcd]', 'fe80::1%eth0'.replace('fe80::1', '2001:db8:7:1::2')];
    const keys = new Set(home.map((address) => clientKeyOf(address)));
    expect([...keys]).toEqual(['2001:db8:7:1:0:0:0:0/64']);
    expect(clientKeyOf('2001:db8:7:2::1')).toBe('2001:db8:7:2:0:0:0:0/64');
    // An IPv4 address written in the last 32 bits of an IPv6 one is IPv6 (only ::ffff: maps to IPv4).
    expect(clientKeyOf('2001:db8:7:1::192.0.2.1')).toBe('2001:db8:7:1:0:0:0:0/64');
  });

  it('takes another prefix length, to the bit', () => {
    expect(clientKeyOf('2001:db8:7:1::1', 48)).toBe('2001:db8:7:0:0:0:0:0/48');
    expect(clientKeyOf('2001:db8:7:f123::1', 52)).toBe('2001:db8:7:f000:0:0:0:0/52');
    expect(clientKeyOf('2001:db8:7:1::1', 128)).toBe('2001:db8:7:1:0:0:0:1/128');
  });

  it('counts what is not an address as its own text, lowercased and cut', () => {
    expect(clientKeyOf('Unknown')).toBe('unknown');
    expect(clientKeyOf('203.0.113.9, 10.0.0.1')).toBe('203.0.113.9, 10.0.0.1');
    expect(clientKeyOf('1::2::3')).toBe('1::2::3');
    expect(clientKeyOf('256.1.1.1')).toBe('256.1.1.1');
    expect(clientKeyOf('x'.repeat(500))).toHaveLength(64);
  });
});
