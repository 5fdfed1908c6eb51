/**
 * The dashboard's files: a page with no value of its own in it (everything it shows arrives through the event
 * stream and is put on the page as text), its stylesheet, and its script (app.ts and its parts), each served at
 * its own path so that the page runs under a policy that allows no inline script or style at all.
 */
import { framingSources } from '../http/guard.js';
import { dashboardApp } from './app.js';
import { dashboardControls } from './controls.js';
import { dashboardElements } from './elements.js';
import { dashboardSections } from './sections.js';

/** Only the dashboard's own script, styles and API; framed only by this machine's pages. */
export function dashboardPolicy(publicUrl: string): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "connect-src 'self'",
    "img-src 'self' data:",
    "base-uri 'none'",
    "form-action 'none'",
    `frame-ancestors ${framingSources(publicUrl)}`,
  ].join('; ');
}

/**
 * The page. `root` is the way from the page's address to the sandbox's root (`''` at `/`, `'../'` at
 * `/sandbox/dashboard`), so that it works wherever a dev server mounts the sandbox.
 */
export function dashboardHtml(root: '' | '../'): string {
  return `<!doctype html>
<html lang="en" data-api="${root}sandbox/v1/" data-root="${root}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>svc-sandbox</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${root}sandbox/dashboard.css">
<script defer src="${root}sandbox/dashboard.js"></script>
</head>
<body>
<header>
  <h1>svc-sandbox</h1>
  <p id="connection" role="status" data-state="connecting">Connecting…</p>
  <section id="clock" aria-labelledby="clock-title">
    <h2 id="clock-title">Sandbox clock</h2>
    <p><time id="clock-now">—</time> <span id="clock-offset"></span></p>
    <div id="clock-controls" class="controls"></div>
  </section>
  <p id="notice" role="alert" hidden></p>
</header>
<main>
  <section aria-labelledby="links-title"><h2 id="links-title">Payment links</h2><div id="links"></div></section>
  <section aria-labelledby="orders-title"><h2 id="orders-title">Orders</h2><div id="orders"></div></section>
  <section aria-labelledby="deliveries-title"><h2 id="deliveries-title">Callback deliveries</h2><div id="deliveries"></div></section>
  <section aria-labelledby="messages-title"><h2 id="messages-title">Messages to payers</h2><div id="messages"></div></section>
  <section aria-labelledby="refunds-title"><h2 id="refunds-title">Refunds</h2><div id="refunds"></div></section>
  <section aria-labelledby="expectations-title"><h2 id="expectations-title">Expectations</h2><div id="expectations"></div></section>
  <section aria-labelledby="delivery-faults-title"><h2 id="delivery-faults-title">Callback delivery faults</h2><div id="delivery-faults"></div></section>
  <section aria-labelledby="faults-title"><h2 id="faults-title">Service faults</h2><div id="faults"></div></section>
</main>
</body>
</html>
`;
}

export const DASHBOARD_CSS = `
:root { color-scheme: light dark; --line: #8884; --muted: #6b6b6b; --ok: #0b6b2e; --bad: #a4161a; --wait: #8a4b00; }
* { box-sizing: border-box; }
body { font: 14px/1.45 system-ui, sans-serif; margin: 0; padding: 0 1rem 3rem; }
header { position: sticky; top: 0; background: Canvas; border-block-end: 1px solid var(--line); padding-block: .5rem; z-index: 1; }
h1 { font-size: 1.25rem; margin: 0; display: inline-block; margin-inline-end: 1rem; }
h2 { font-size: 1.05rem; margin: 1.5rem 0 .5rem; }
#clock h2 { display: inline; font-size: 1rem; margin-inline-end: .5rem; }
#clock p { display: inline; margin-inline-end: 1rem; }
#connection { display: inline-block; margin: 0; padding: 0 .5rem; border-radius: 4px; border: 1px solid var(--line); }
#connection[data-state="live"] { color: var(--ok); }
#connection[data-state="reconnecting"] { color: var(--bad); }
#notice { margin: .25rem 0 0; color: var(--bad); }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: start; vertical-align: top; padding: .25rem .5rem; border-block-end: 1px solid var(--line); }
th { font-weight: 600; }
td.mono, .mono { font-family: ui-monospace, monospace; font-size: 12px; overflow-wrap: anywhere; }
.status-SUCCESS, .status-acknowledged { color: var(--ok); font-weight: 600; }
.status-FAIL, .status-CLOSE, .status-abandoned, .status-omitted { color: var(--bad); font-weight: 600; }
.status-PENDING, .status-INITIAL, .status-waiting, .status-held, .status-sending { color: var(--wait); font-weight: 600; }
.controls { display: inline-flex; flex-wrap: wrap; gap: .25rem; }
button { font: inherit; padding: .1rem .5rem; border-radius: 4px; border: 1px solid currentColor; background: Canvas; color: CanvasText; cursor: pointer; }
button:focus-visible, input:focus-visible, select:focus-visible { outline: 3px solid #1d4ed8; outline-offset: 1px; }
form { display: flex; flex-wrap: wrap; gap: .5rem; align-items: end; margin-block: .5rem; }
label { display: flex; flex-direction: column; font-size: 12px; color: var(--muted); }
input, select { font: inherit; padding: .1rem .25rem; }
details summary { cursor: pointer; }
ol.life { margin: .25rem 0; padding-inline-start: 1.25rem; }
.empty { color: var(--muted); }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%); white-space: nowrap; }
`;

/**
 * The script: the app given its parts, each one self-contained function written out as its source text (app.ts),
 * then run with the page's window and document.
 */
export function dashboardScript(): string {
  const parts = `{ elements: ${dashboardElements.toString()}, sections: ${dashboardSections.toString()}, controls: ${dashboardControls.toString()} }`;
  return `"use strict";\n(${dashboardApp.toString()})(${parts})(window, document);\n`;
}
