// Which stored encoding of an element file a request gets from its Accept-Encoding (src/server/element/encoding.ts):
// brotli before gzip before the file as it is, a client's q-values honoured, q=0 a refusal.
import { describe, expect, it } from 'vitest';
import { chooseEncoding, type ContentCoding } from '../../../src/server/element/encoding.js';

const ALL: ContentCoding[] = ['identity', 'br', 'gzip'];
const choose = (header: string | null, available = ALL) => chooseEncoding(header, available);

describe('choosing an encoding from Accept-Encoding', () => {
  it('sends brotli to the browsers, which name it among others without a q-value', () => {
    expect(choose('gzip, deflate, br, zstd')).toBe('br'); // Chromium
    expect(choose('gzip, deflate, br')).toBe('br'); // WebKit
    expect(choose('deflate, gzip, br, zstd')).toBe('br'); // another order: ours decides at equal q-values
  });

  it('sends gzip to a client that takes gzip only, and to one that takes br but the file has no brotli copy', () => {
    expect(choose('gzip, deflate')).toBe('gzip');
    expect(choose('x-gzip')).toBe('gzip');
    expect(choose('GZip')).toBe('gzip');
    expect(choose('br, gzip', ['identity', 'gzip'])).toBe('gzip');
  });

  it('sends the file as it is without the header, with an empty one, and when only unknown codings are named', () => {
    expect(choose(null)).toBe('identity');
    expect(choose('')).toBe('identity');
    expect(choose('deflate, zstd, compress')).toBe('identity');
    expect(choose('br', ['identity'])).toBe('identity');
  });

  it('honours q-values: the highest wins, ours at a tie', () => {
    expect(choose('br;q=0.5, gzip;q=0.8')).toBe('gzip');
    expect(choose('br;q=0.8, gzip;q=0.8')).toBe('br');
    expect(choose('br ; q=0.2, identity;q=0.5')).toBe('identity');
    expect(choose('gzip;q=1.0, br;q=0.999')).toBe('gzip');
    // The file as it is, unnamed, comes after any coding the header accepts, however low its q-value.
    expect(choose('br;q=0.001')).toBe('br');
  });

  it('takes q=0 as a refusal, of a coding or of the file as it is', () => {
    expect(choose('br;q=0, gzip')).toBe('gzip');
    expect(choose('br;q=0, gzip;q=0')).toBe('identity');
    expect(choose('gzip, identity;q=0')).toBe('gzip');
    expect(choose('br;Q=0.000, gzip')).toBe('gzip');
  });

  it('reads * as every coding the header does not name, the file as it is included', () => {
    expect(choose('*')).toBe('br');
    expect(choose('br;q=0, *')).toBe('gzip');
    expect(choose('*;q=0.5, gzip')).toBe('gzip');
    expect(choose('*;q=0, identity')).toBe('identity');
    expect(choose('*;q=0, gzip;q=0.1')).toBe('gzip');
  });

  it('gives none (a 406) when every coding the file has is refused', () => {
    expect(choose('identity;q=0')).toBeUndefined();
    expect(choose('*;q=0')).toBeUndefined();
    expect(choose('br, identity;q=0', ['identity', 'gzip'])).toBeUndefined();
  });

  it('passes over an item whose q-value is none: it accepts nothing', () => {
    expect(choose('br;q=2, gzip')).toBe('gzip');
    expect(choose('br;q=-1, gzip;q=abc')).toBe('identity');
    expect(choose('br;q=0.1234, gzip;q=.5')).toBe('identity');
    expect(choose('br;q=1.5, identity;q=0')).toBeUndefined();
  });
});
