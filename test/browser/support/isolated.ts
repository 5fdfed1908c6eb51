/**
 * Driving the isolated frames of an element (src/isolated-fields) as a payer does. The test page cannot reach into a
 * frame (its origin is opaque): keys reach it as a payer's do, by focus (into the frame, then Tab from field to field),
 * and what it shows is read through the browser's automation (`svc-frame-eval`, web-test-runner.config.mjs).
 */
import { executeServerCommand, sendKeys } from '@web/test-runner-commands';
import { FRAME_PAGE } from '../../../src/core/paths.js';
import { decodeConfig } from '../../../src/isolated-fields/protocol.js';
import { deepQueryAll, until } from './checkout.js';

/** The isolated frames of an element, through its parts' shadow roots. */
export function isolatedFrames(root: Element): HTMLIFrameElement[] {
  return deepQueryAll<HTMLIFrameElement>(root, 'iframe').filter((frame) => frame.src.includes(FRAME_PAGE));
}

/** The nonce in a frame's address: what finds that very frame. */
function nonceOf(frame: HTMLIFrameElement): string {
  const nonce = decodeConfig(new URL(frame.src).hash)?.nonce;
  if (!nonce) throw new Error(`not an isolated frame: ${frame.src}`);
  return nonce;
}

/** Runs a function's body in the frame's document; answers what it returns (null when the frame is gone). */
export async function inFrame<T = unknown>(frame: HTMLIFrameElement, body: string, ...args: unknown[]): Promise<T | null> {
  return evaluate<T>(frame, body, args, false);
}

async function evaluate<T>(frame: HTMLIFrameElement, body: string, args: unknown[], axe: boolean): Promise<T | null> {
  const answer = await executeServerCommand<{ value?: T; error?: string; missing?: true }, unknown>('svc-frame-eval', { address: nonceOf(frame), body, args, axe });
  if (answer?.error) throw new Error(`in the frame: ${answer.error}`);
  return answer?.missing ? null : (answer?.value ?? null);
}

/**
 * The element's isolated frame, once its page has greeted the element and has its channel: the frame then says its
 * height, which the element gives the `<iframe>` (in pixels; a guess in ems before).
 */
export async function loadedFrame(root: Element, timeoutMs?: number): Promise<HTMLIFrameElement> {
  return until('the isolated frame, connected', () => isolatedFrames(root).find((frame) => frame.style.blockSize.endsWith('px')), timeoutMs);
}

/**
 * Until the frame takes keys: a bank account frame opens its fields once it shows what the payer pays (its create's
 * proof came: at once with a checkout token, after the page's ticket request otherwise); a code's frame at once.
 */
export async function untilOpen(frame: HTMLIFrameElement): Promise<void> {
  await until('the frame open to keys', () => inFrame<boolean>(frame, "return [...document.querySelectorAll('input')].every((input) => !input.readOnly);"));
}

/**
 * Types into the element's isolated frame as a payer does: the element puts focus at the frame's first field (as it
 * does when the step opens; a shop's own UI by `start`), each value goes into the next field (Tab from one to the
 * next; `undefined` leaves a field as it is), and Tab leaves the last.
 */
export async function typeInFrame(root: Element, values: readonly (string | undefined)[], start?: () => void): Promise<void> {
  const frame = await loadedFrame(root);
  await untilOpen(frame);
  if (start) start();
  else ((frame.getRootNode() as ShadowRoot).host as HTMLElement & { focusStart(): void }).focusStart();
  await until('focus in the frame', () => inFrame<boolean>(frame, 'return document.hasFocus();'));
  // At its first field, where the browser lets a frame focus one before the payer's first key (WebKit gives it at
  // that key: the frame keeps the field it was asked for until then).
  await until('focus at the first field', () => inFrame<boolean>(frame, "return document.activeElement?.tagName === 'INPUT';"), 1_500).catch(() => undefined);
  for (const [index, value] of values.entries()) {
    if (index > 0) await sendKeys({ press: 'Tab' });
    if (value) await sendKeys({ type: value });
  }
  await sendKeys({ press: 'Tab' });
  // As a payer's hand goes from the keys to Pay: the frame has handled the keys (a round trip into it), and its last
  // report has crossed to the page (a moment: a message between two processes).
  await inFrame(frame, 'return true;');
  await new Promise((resolve) => setTimeout(resolve, 100));
}

/** The text every isolated frame of the element shows. */
export async function frameText(root: Element): Promise<string> {
  const texts = await Promise.all(isolatedFrames(root).map((frame) => inFrame<string | null>(frame, 'return document.body.innerText;').catch(() => '')));
  return texts.join(' ').replace(/\s+/g, ' ').trim();
}

/** A field of the frame, as the browser's automation reads it there: its value and its attributes. */
export async function frameField(root: Element, name: string): Promise<{ value: string; attributes: Record<string, string> } | null> {
  const frame = await loadedFrame(root);
  return inFrame(
    frame,
    `const field = document.querySelector('input[name="' + args[0] + '"]');
     if (!field) return null;
     return { value: field.value, attributes: Object.fromEntries([...field.attributes].map((item) => [item.name, item.value])) };`,
    name,
  );
}

/** The error messages the frame shows, without the word said before each to screen readers. */
export async function frameErrors(root: Element): Promise<string[]> {
  const frame = await loadedFrame(root);
  return (await inFrame<string[]>(frame, `return [...document.querySelectorAll('.error:not([hidden])')].map((error) => [...error.childNodes].filter((node) => node.nodeType === 3).map((node) => node.textContent).join('').trim());`)) ?? [];
}

/**
 * axe-core's WCAG 2.2 A and AA rules, and its best practices, in the frame's document: the violations, with their
 * nodes. The rules about a whole page's structure (a main landmark, a first heading, content in landmarks) are the
 * shop page's, which the frame's fields sit in, and are checked there.
 */
export async function frameViolations(frame: HTMLIFrameElement): Promise<string[]> {
  const body = `const results = await axe.run(document, { rules: { region: { enabled: false }, 'landmark-one-main': { enabled: false }, 'page-has-heading-one': { enabled: false } } });
    return results.violations.map((violation) => violation.id + ': ' + violation.help + ' (' + violation.nodes.map((node) => node.target.join(' ')).join(', ') + ')');`;
  return (await evaluate<string[]>(frame, body, [], true)) ?? ['the frame is gone'];
}
