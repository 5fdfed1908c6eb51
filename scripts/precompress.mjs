// The CDN build's text files compressed beside them, once, at build time: `<file>.br` (brotli at its best quality,
// which is also what the size budget counts) and `<file>.gz` (gzip -9). The kit reads them with the files and sends
// the one a browser accepts (src/server/element/element-files.ts), so that a shop with no compression of its own
// still sends the bytes we measure, and no request pays for compressing. A copy that would be no smaller than its
// file is not written: the file is served as it is.
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';

/** What the kit serves as text (its types: scripts, source maps, styles, the frame's page, the licences). */
const TEXT_FILE = /\.(?:js|map|css|html|txt)$/;

const brotli = promisify(brotliCompress);
const gzipped = promisify(gzip);

/** Each copy's suffix, and how it is made. */
export const COMPRESSED_COPIES = {
  '.br': (bytes) => brotli(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY, [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length } }),
  '.gz': (bytes) => gzipped(bytes, { level: 9 }),
};

/** Writes the compressed copies of every text file under `folder` (its sub-folders too); returns what it wrote. */
export async function precompress(folder) {
  const files = (await readdir(folder, { recursive: true })).map(String).filter((name) => TEXT_FILE.test(name));
  const written = await Promise.all(
    files.map(async (name) => {
      const bytes = await readFile(join(folder, name));
      const copies = await Promise.all(
        Object.entries(COMPRESSED_COPIES).map(async ([suffix, compress]) => {
          const compressed = await compress(bytes);
          if (compressed.length >= bytes.length) return undefined;
          await writeFile(join(folder, `${name}${suffix}`), compressed);
          return { file: `${name}${suffix}`, bytes: compressed.length };
        }),
      );
      return copies.filter(Boolean);
    }),
  );
  return written.flat();
}
