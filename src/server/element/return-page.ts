/**
 * The page the bank returns a payer to after 3-D Secure in a new window (`redirect-mode="new-window"`). The
 * window was opened without access to the shop's tab, so this page cannot reach back through `opener`: it tells
 * the shop's tabs over a same-origin BroadcastChannel, then closes itself. It is never a second copy of the shop.
 */
import { RETURN_CHANNEL, RETURN_MESSAGE } from '../../core/index.js';

const SCRIPT = `new BroadcastChannel(${JSON.stringify(RETURN_CHANNEL)}).postMessage({type:${JSON.stringify(RETURN_MESSAGE)}});setTimeout(function(){window.close()},50);`;

const PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Payment step done</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:28rem;margin:3rem auto;padding:0 1rem}</style>
</head><body><main><h1>Payment step done</h1><p>You can close this window and go back to the shop.</p></main>
<script>${SCRIPT}</script></body></html>`;

let policy: Promise<string> | undefined;

/** Only this page's own script and style may run: their hashes, computed once. */
function contentSecurityPolicy(): Promise<string> {
  policy ??= (async () => {
    const hash = async (text: string) => {
      const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)));
      let binary = '';
      for (const byte of digest) binary += String.fromCharCode(byte);
      return `'sha256-${btoa(binary)}'`;
    };
    const style = /<style>([\s\S]*?)<\/style>/.exec(PAGE)?.[1] ?? '';
    return `default-src 'none'; script-src ${await hash(SCRIPT)}; style-src ${await hash(style)}; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`;
  })();
  return policy;
}

export async function returnPage(): Promise<Response> {
  return new Response(PAGE, {
    status: 200,
    headers: {
      'Content-Type': 'text/html; charset=utf-8',
      'Cache-Control': 'no-store',
      'Content-Security-Policy': await contentSecurityPolicy(),
      'Referrer-Policy': 'no-referrer',
      'X-Content-Type-Options': 'nosniff',
    },
  });
}
