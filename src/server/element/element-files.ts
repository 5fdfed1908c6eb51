/**
 * The element's CDN build (the package's dist/cdn), served by the kit under its base path, so that a shop serves
 * nothing else for its checkout: `<basePath>/svc-checkout.js` (the entry, which is the first frame),
 * `svc-checkout-ar.js` (Arabic's words, under a fixed name for a page's preload link), `chunks/<name>-<hash>.js`
 * (the session, the steps, the other forms), their source maps, and `svc-checkout.css` (what holds the checkout's
 * place, saying it is loading, until the script has run). The entry imports the rest relative to itself, and the
 * element takes the folder it came from as its endpoint: a page needs no `endpoint` attribute.
 *
 * The files are read once, all together, the first time one is needed, and kept: a page never gets an entry of one
 * build and the chunks of another. They are read through node:fs where the runtime has it (Node ≥ 20.16, Bun, Deno);
 * elsewhere (an edge runtime) the routes answer 404 and the script's integrity cannot be given: serve dist/cdn as
 * the platform's static files there, and set the element's `endpoint`.
 *
 * The build writes each text file's brotli and gzip copies beside it (`svc-checkout.js.br`, `.gz`:
 * scripts/precompress.mjs). They are read with the files, and each request gets the one its `Accept-Encoding` asks
 * for (encoding.ts), as it is: a shop that compresses nothing of its own still sends the bytes the size budget counts,
 * and no request spends CPU on compressing.
 */
import { FRAME_PAGE } from '../../core/paths.js';
import { nodeCrypto, nodeFs } from '../runtime/modules.js';
import { chooseEncoding, type ContentCoding } from './encoding.js';

/** The entry's file name: the address a page loads, and the one every chunk imports back. */
export const ELEMENT_ENTRY = 'svc-checkout.js';
/** The placeholder's styles (`svc-checkout` not yet defined, or not yet painted: no `dir`), built beside the entry. */
export const ELEMENT_STYLESHEET = 'svc-checkout.css';
/** Arabic's words: fixed, so that an Arabic page can preload them. */
export const ELEMENT_ARABIC = 'svc-checkout-ar.js';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
};

/** A chunk's name carries its content's hash: kept for good. The fixed names are asked again each time. */
const IMMUTABLE = 'public, max-age=31536000, immutable';
const REVALIDATE = 'no-cache';

/** The file as it is, or one of its compressed copies. */
interface Representation {
  body: Uint8Array<ArrayBuffer>;
  /** A strong validator: the file's SHA-384, and the coding's name after it for a copy (304s per encoding). */
  etag: string;
}

type Compressed = Exclude<ContentCoding, 'identity'>;

/** A compressed copy, checked to decode to its file's bytes the first time it is chosen (most never are: maps). */
interface Copy extends Representation {
  checked?: boolean;
}

interface ElementFile extends Representation {
  type: string;
  caching: string;
  /** The file's SHA-384, which its copies must decode to. */
  hash: string;
  /** Its compressed copies; one found not to hold the file is dropped. */
  encoded: Partial<Record<Compressed, Copy>>;
}

/** The build's copies beside a file: their suffixes and codings. */
const COPIES = { '.br': 'br', '.gz': 'gzip' } as const;

/** What decodes a copy, to check it against its file: node:zlib, looked up as src/server/runtime/modules.ts looks up node:fs. */
interface NodeZlib {
  brotliDecompressSync(bytes: Uint8Array): Uint8Array;
  gunzipSync(bytes: Uint8Array): Uint8Array;
}
const nodeZlib = (() => {
  try {
    return (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process?.getBuiltinModule?.('node:zlib') as NodeZlib | undefined;
  } catch {
    return undefined;
  }
})();

/**
 * What the isolated frame's page may do (docs/isolated-fields.md): run its one script and use its one stylesheet,
 * both inline and named by their hashes, connect to this kit, and be framed by the shop's pages only, always in a
 * sandbox of its own (an opaque origin). Nothing else loads: no image, font, form target or frame. `connect-src` names
 * the kit's origins besides 'self' (in WebKit, 'self' of a document with an opaque origin matches nothing): those of its
 * configuration, never of a request's `Host` (src/server/runtime/public-origin.ts).
 */
function framePolicy(body: Uint8Array, kitOrigins: readonly string[], ancestors: readonly string[]): string {
  const html = new TextDecoder().decode(body);
  const hash = (tag: string) => {
    const inside = new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`).exec(html)?.[1] ?? '';
    return `'sha256-${nodeCrypto!.createHash('sha256').update(new TextEncoder().encode(inside)).digest('base64')}'`;
  };
  return [
    "default-src 'none'",
    `script-src ${hash('script')}`,
    `style-src ${hash('style')}`,
    `connect-src ${["'self'", ...kitOrigins].join(' ')}`,
    "base-uri 'none'",
    "form-action 'none'",
    // An opaque origin whoever frames it, and however: a page that frames it without the element's `sandbox`
    // attribute, or opens it at the top, gets the same document the shop's own scripts cannot reach.
    'sandbox allow-scripts allow-forms',
    `frame-ancestors ${["'self'", ...ancestors].join(' ')}`,
  ].join('; ');
}

/**
 * Where the files are: the folder beside the kit's own (dist/server/element -> dist/cdn). None where the kit's module has no
 * address of its own (bundled for an edge runtime, which has no files to read either).
 */
function defaultFolder(): URL | undefined {
  try {
    return new URL('../../cdn/', import.meta.url);
  } catch {
    return undefined;
  }
}

/** Only where the files could be read: node:crypto is there too. */
function sha384(bytes: Uint8Array): string {
  return nodeCrypto!.createHash('sha384').update(bytes).digest('base64');
}

const escapeAttribute = (text: string) => text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

export interface ElementTagOptions {
  /**
   * The page's language: for Arabic (`ar`, `ar-EG`, …) a preload link for its words, so that the checkout's first
   * frame does not wait one more round trip for them.
   */
  lang?: string;
}

/** The element's script as a kit serves it (`handler.element`). */
export interface ElementScript {
  /** Where the entry is served: `<basePath>/svc-checkout.js`. */
  readonly src: string;
  /** The entry's Subresource Integrity value, `sha384-…`. Throws where the kit cannot read the files. */
  readonly integrity: string;
  /** Where the placeholder's stylesheet is served: `<basePath>/svc-checkout.css`. */
  readonly stylesheet: string;
  /**
   * The tags for the page's `<head>`: the placeholder's stylesheet, and the entry as a module with its integrity
   * (and, for an Arabic page, a preload link for its words). Nothing inline: they work under
   * `Content-Security-Policy: default-src 'self'`.
   */
  tags(options?: ElementTagOptions): string;
}

export class ElementFiles implements ElementScript {
  readonly #folder: URL | undefined;
  readonly #basePath: string;
  readonly #frameAncestors: readonly string[];
  readonly #kitOrigins: (request: Request) => readonly string[];
  #files: Map<string, ElementFile> | undefined;
  /** The isolated frame's policy for the kit's origins (one set, from the configuration; or a few, from sockets). */
  readonly #framePolicies = new Map<string, string>();

  /**
   * `folder`: where the CDN build is, a folder's file: URL resolved by the configuration (default: the package's own); `false`: the kit serves none. `frameAncestors`:
   * the origins of the shop's pages, which may frame the isolated frame besides the kit's own. `kitOrigins`: the
   * origins the frame may connect to for a request (src/server/runtime/public-origin.ts).
   */
  constructor(folder: URL | false | undefined, basePath: string, frameAncestors: readonly string[] = [], kitOrigins: (request: Request) => readonly string[] = () => []) {
    this.#folder = folder === false ? undefined : folder === undefined ? defaultFolder() : folder;
    this.#basePath = basePath;
    this.#frameAncestors = frameAncestors;
    this.#kitOrigins = kitOrigins;
  }

  get src(): string {
    return `${this.#basePath}/${ELEMENT_ENTRY}`;
  }

  get stylesheet(): string {
    return `${this.#basePath}/${ELEMENT_STYLESHEET}`;
  }

  get integrity(): string {
    const files = this.#read();
    if (typeof files === 'string') throw new Error(`svc-checkout: ${files}`);
    const entry = files.get(ELEMENT_ENTRY);
    if (!entry) throw new Error(`svc-checkout: the element's files have no ${ELEMENT_ENTRY} (${this.#folder?.href})`);
    return `sha384-${entry.etag.slice(1, -1)}`;
  }

  tags(options: ElementTagOptions = {}): string {
    const arabic = /^ar(?:-|$)/i.test(options.lang ?? '');
    return [
      `<link rel="stylesheet" href="${escapeAttribute(this.stylesheet)}">`,
      arabic ? `<link rel="modulepreload" href="${escapeAttribute(`${this.#basePath}/${ELEMENT_ARABIC}`)}">` : '',
      `<script type="module" src="${escapeAttribute(this.src)}" integrity="${this.integrity}"></script>`,
    ].join('');
  }

  /** The file at `path` (the part after the base path, `/svc-checkout.js`), or undefined when it is none of them. */
  #fileAt(path: string): ElementFile | undefined {
    if (!/^\/(?:chunks\/)?[\w-]+(?:\.[\w-]+)+$/.test(path)) return undefined;
    const files = this.#read();
    return typeof files === 'string' ? undefined : files.get(path.slice(1));
  }

  /**
   * The answer to a request for one of the files, or undefined when `path` names none (the kit's other routes): in
   * the encoding its `Accept-Encoding` prefers of those the file has, said in `Vary` to every cache on the way.
   */
  serve(path: string, request: Request): Response | undefined {
    const file = this.#fileAt(path);
    if (!file) return undefined;
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      return new Response('only GET and HEAD are served here', { status: 405, headers: { Allow: 'GET, HEAD', 'Content-Type': TYPES['.txt']! } });
    }
    const vary: Record<string, string> = Object.keys(file.encoded).length > 0 ? { Vary: 'Accept-Encoding' } : {};
    const coding = encodingOf(file, request.headers.get('accept-encoding'));
    if (!coding) {
      const refusal = `this file is served as ${codingsOf(file).join(', ')}; Accept-Encoding refuses each`;
      return new Response(refusal, { status: 406, headers: { ...vary, 'Content-Type': TYPES['.txt']! } });
    }
    const sent = coding === 'identity' ? file : file.encoded[coding]!;
    const headers: Record<string, string> = {
      'Content-Type': file.type,
      'Cache-Control': file.caching,
      ETag: sent.etag,
      ...vary,
      'X-Content-Type-Options': 'nosniff',
      ...(path === `/${FRAME_PAGE}` ? this.#frameHeaders(file, this.#kitOrigins(request)) : {}),
    };
    // A 304 says nothing of the body's coding: a cache keeps the one it stored with the same ETag.
    if (matchesEtag(request.headers.get('if-none-match'), sent.etag)) return new Response(null, { status: 304, headers });
    if (coding !== 'identity') headers['Content-Encoding'] = coding;
    headers['Content-Length'] = String(sent.body.byteLength);
    return new Response(request.method === 'HEAD' ? null : sent.body, { status: 200, headers });
  }

  /**
   * The isolated frame's page is a document of its own: its policy, and its embedding by pages under
   * `Cross-Origin-Embedder-Policy: require-corp` (it is a cross-origin resource to them, and takes that policy itself).
   */
  #frameHeaders(file: ElementFile, kitOrigins: readonly string[]): Record<string, string> {
    const key = kitOrigins.join(' ');
    let policy = this.#framePolicies.get(key);
    if (!policy) {
      policy = framePolicy(file.body, kitOrigins, this.#frameAncestors);
      if (this.#framePolicies.size < 16) this.#framePolicies.set(key, policy);
    }
    return {
      'Content-Security-Policy': policy,
      'Cross-Origin-Resource-Policy': 'cross-origin',
      'Cross-Origin-Embedder-Policy': 'require-corp',
      'Referrer-Policy': 'no-referrer',
    };
  }

  /**
   * Every file of the folder and of its chunks/, read once: one build's files, whatever happens to the folder later.
   * Or why there are none (then the routes answer 404, and `integrity` throws with it).
   */
  #read(): Map<string, ElementFile> | string {
    if (this.#files) return this.#files;
    const folder = this.#folder;
    if (!folder) return 'this handler serves no element files (elementFiles: false, or a bundle with no address of its own)';
    if (!nodeFs || !nodeCrypto) {
      return "this runtime gives the kit no file system: serve the package's dist/cdn as static files, and set the element's endpoint";
    }
    const files = new Map<string, ElementFile>();
    for (const prefix of ['', 'chunks/']) {
      let entries: { name: string; isFile(): boolean }[];
      try {
        entries = nodeFs.readdirSync(new URL(prefix, folder), { withFileTypes: true });
      } catch (error) {
        if (prefix) continue;
        // Not kept: a build that lands in the folder later is read then.
        return `the element's files are not at ${folder.href}: run \`npm run build\` (${(error as Error).message})`;
      }
      const names = new Set(entries.filter((entry) => entry.isFile()).map((entry) => entry.name));
      for (const name of names) {
        const type = TYPES[/\.[^.]+$/.exec(name)?.[0] ?? ''];
        if (!type) continue;
        const read = (file: string) => nodeFs!.readFileSync(new URL(`${prefix}${file}`, folder));
        const body = read(name);
        const hash = sha384(body);
        const encoded: ElementFile['encoded'] = {};
        for (const [suffix, coding] of Object.entries(COPIES)) {
          if (names.has(`${name}${suffix}`)) encoded[coding] = { body: read(`${name}${suffix}`), etag: `"${hash}-${coding}"` };
        }
        const hashed = prefix === 'chunks/';
        files.set(`${prefix}${name}`, { body, type, caching: hashed ? IMMUTABLE : REVALIDATE, etag: `"${hash}"`, hash, encoded });
      }
    }
    this.#files = files;
    return files;
  }
}

const codingsOf = (file: ElementFile): ContentCoding[] => ['identity', ...(Object.keys(file.encoded) as Compressed[])];

/**
 * The coding a request gets of a file (undefined: none it accepts). A copy is checked the first time it is chosen:
 * one that does not hold the file's bytes (left from another build, beside a file replaced by hand) would give a
 * browser other code than the integrity names, which it then refuses; it is dropped, and the next choice made.
 */
function encodingOf(file: ElementFile, acceptEncoding: string | null): ContentCoding | undefined {
  for (;;) {
    const coding = chooseEncoding(acceptEncoding, codingsOf(file));
    if (coding === undefined || coding === 'identity') return coding;
    const copy = file.encoded[coding]!;
    copy.checked ??= decodesTo(copy.body, coding, file.hash);
    if (copy.checked) return coding;
    delete file.encoded[coding];
  }
}

/** Whether a copy decodes to the bytes of this SHA-384; never where node:zlib is missing to tell. */
function decodesTo(copy: Uint8Array, coding: Compressed, hash: string): boolean {
  if (!nodeZlib) return false;
  try {
    return sha384(coding === 'br' ? nodeZlib.brotliDecompressSync(copy) : nodeZlib.gunzipSync(copy)) === hash;
  } catch {
    return false;
  }
}

/** `If-None-Match: "a", "b"` or `*`, against one strong ETag. */
function matchesEtag(header: string | null, etag: string): boolean {
  if (!header) return false;
  return header.trim() === '*' || header.split(',').some((candidate) => candidate.trim().replace(/^W\//, '') === etag);
}
