/**
 * The page's side of an isolated frame: the `<iframe>` itself (an opaque origin by `sandbox`, loaded by address from
 * the merchant's kit, its configuration in the fragment), the handshake, and the private channel after it. It attaches
 * the frame's fields to a checkout session (`CheckoutSession.isolate`), sends the session's calls through it, and passes
 * the frame the errors and look to show. `<svc-checkout>` uses it for its bank account form and code steps; a shop's
 * own UI mounts one with `mountIsolatedFields` (mount.ts).
 */
import { answerOf, DEFAULT_TIMEOUT_MS, EndpointError, FrameCallUnanswered, unanswered, type EndpointAnswer } from '../checkout/endpoint-client.js';
import type { FieldName } from '../checkout/fields.js';
import type { IsolatedCall, IsolatedLink, IsolatedProof, IsolatedReport } from '../checkout/isolated.js';
import type { CheckoutSession } from '../checkout/session.js';
import { EXPIRES_IN_HEADER, FRAME_PAGE, ORDER_TOKEN_HEADER } from '../core/paths.js';
import { encodeConfig, FRAME_FIELDS, HANDSHAKE, THEME_TOKENS, type FrameErrors, type FrameFocus, type FrameKind, type FrameLook, type FromFrame, type SentResponse, type ToFrame } from './protocol.js';

/** How long a frame may take to greet its page: from its making, and from its document's load (its script is inline). */
export const FRAME_GREETING_MS = { made: 15_000, loaded: 3_000 };

/** The room around the frame's fields for their focus ring, which the frame's edge would cut (frame.css): taken back here. */
const FOCUS_ROOM_PX = 6;

export interface IsolatedFrameOptions {
  /** The merchant kit's address (the element's `endpoint`): the frame is its page `svc-checkout-frame.html`. */
  endpoint: string;
  kind: FrameKind;
  look: FrameLook;
  /** The frame's title: what a screen reader says on entering it. */
  title: string;
  /** The payer pressed Enter in a field: the form's, or the code's, submit. */
  onSubmit?: () => void;
}

/** The session, as far as a frame needs it. */
export type IsolatingSession = Pick<CheckoutSession, 'isolate' | 'blur'>;

/** The element's design tokens as resolved for `element`, and its font: what the frame's look takes. */
export function themeOf(element: Element): Record<string, string> {
  const style = getComputedStyle(element);
  const theme: Record<string, string> = {};
  for (const token of THEME_TOKENS) {
    const value = style.getPropertyValue(token).trim();
    if (value) theme[token] = value;
  }
  return theme;
}

export class IsolatedFrame {
  /** The `<iframe>`, for the page to place where the fields go. */
  readonly element: HTMLIFrameElement;
  readonly kind: FrameKind;
  readonly #nonce = randomNonce();
  readonly #options: IsolatedFrameOptions;
  #port: MessagePort | undefined;
  /** What waits for the channel: a focus, a call. */
  #queued = new Map<string, ToFrame>();
  /** The latest look and errors, given again to a frame that greets anew (its document reloaded: moved in the page). */
  readonly #latest = new Map<string, ToFrame>();
  /** Until the frame greets: when it is given up as not loading. */
  #deadline: ReturnType<typeof setTimeout> | undefined;
  #report: IsolatedReport;
  #session: IsolatingSession | undefined;
  #link: IsolatedLink | undefined;
  #sent = 0;
  readonly #pending = new Map<number, { call: IsolatedCall; resolve: (answer: EndpointAnswer<unknown>) => void; reject: (error: Error) => void; timer: ReturnType<typeof setTimeout> }>();
  #destroyed = false;
  /** Why the frame was given up, once it was. */
  #failed: string | undefined;

  constructor(options: IsolatedFrameOptions) {
    this.#options = options;
    this.kind = options.kind;
    const fields = FRAME_FIELDS[options.kind];
    // Until the frame says otherwise, nothing is typed in it.
    this.#report = { fields, broken: Object.fromEntries(fields.map((field) => [field, 'required'])) };
    const frame = document.createElement('iframe');
    // Scripts and a form, and no same-origin: the frame's document has an opaque origin, which no script of the page can reach.
    frame.setAttribute('sandbox', 'allow-scripts allow-forms');
    frame.setAttribute('allow', 'otp-credentials');
    frame.title = options.title;
    const page = new URL(`${options.endpoint.replace(/\/+$/, '')}/${FRAME_PAGE}`, document.baseURI);
    frame.src = `${page.href}${encodeConfig({ nonce: this.#nonce, kind: options.kind, look: options.look })}`;
    Object.assign(frame.style, {
      display: 'block',
      border: '0',
      inlineSize: `calc(100% + ${2 * FOCUS_ROOM_PX}px)`,
      margin: `-${FOCUS_ROOM_PX}px`,
      blockSize: options.kind === 'BankAccount' ? '21em' : '7em',
      colorScheme: options.look.theme['color-scheme'] ?? 'normal',
    });
    this.element = frame;
    addEventListener('message', this.#greeted);
    this.#latest.set('look', { type: 'look', look: options.look });
    // A frame that does not greet is one the payer cannot use (not served, refused by its policy, blocked): said.
    this.#wait(FRAME_GREETING_MS.made);
    frame.addEventListener('load', () => this.#port || this.#wait(FRAME_GREETING_MS.loaded));
  }

  /** Attaches the frame's fields to the session: its form takes their state from the frame, and sends through it. */
  connect(session: IsolatingSession): void {
    if (this.#destroyed || this.#session) return;
    this.#session = session;
    this.#link = session.isolate({
      report: this.#report,
      send: (call, body, proof) => this.#send(call, body, proof),
      bind: (proof) => this.#post({ type: 'bind', proof }),
    });
    if (this.#failed) this.#link.failed(this.#failed);
  }

  /** The errors to show at the frame's fields. */
  showErrors(errors: FrameErrors): void {
    this.#post({ type: 'errors', errors });
  }

  /** A new language, words or theme. */
  restyle(look: FrameLook, title: string): void {
    this.element.title = title;
    this.element.style.colorScheme = look.theme['color-scheme'] ?? 'normal';
    this.#post({ type: 'look', look });
  }

  /** Puts the payer in the frame: at its first field, or at its first invalid one. */
  focus(at: FrameFocus): void {
    this.element.focus();
    this.#post({ type: 'focus', at });
  }

  /** The frame goes: the session hears nothing more of it, and a call in flight through it is said lost. */
  destroy(): void {
    if (this.#destroyed) return;
    this.#destroyed = true;
    removeEventListener('message', this.#greeted);
    this.#port?.close();
    clearTimeout(this.#deadline);
    this.#dropPending();
    this.#link?.detach();
    this.element.remove();
  }

  /**
   * The frame's greeting: heard only from this frame's own window, as the browser dispatched it (never an event a
   * script of the page made), with this frame's nonce; then the channel, and nothing more from `window`.
   */
  readonly #greeted = (event: MessageEvent): void => {
    if (!event.isTrusted || event.source !== this.element.contentWindow || event.data?.type !== HANDSHAKE || event.data.nonce !== this.#nonce) return;
    clearTimeout(this.#deadline);
    if (this.#port) {
      // Greeted again: the frame's document was loaded anew (the <iframe> moved in the page), its fields empty and
      // its channel gone. A call in flight through the old one is said lost; the new document gets the look and errors.
      this.#port.close();
      this.#dropPending();
    }
    const channel = new MessageChannel();
    this.#port = channel.port1;
    channel.port1.onmessage = (message) => this.#receive(message.data as FromFrame);
    // The frame's origin is opaque: no origin to name. It takes the port only from its parent, with its nonce.
    this.element.contentWindow?.postMessage({ type: HANDSHAKE, nonce: this.#nonce }, '*', [channel.port2]);
    for (const message of [...this.#latest.values(), ...this.#queued.values()]) channel.port1.postMessage(message);
    this.#queued.clear();
  };

  #post(message: ToFrame): void {
    if (this.#destroyed) return;
    // The latest look, errors and proof: a frame that greets anew (its document reloaded) is given them again.
    const kept = message.type === 'look' || message.type === 'errors' || message.type === 'bind';
    if (kept) this.#latest.set(message.type, message);
    if (this.#port) this.#port.postMessage(message);
    else if (!kept) this.#queued.set(message.type === 'send' ? `send ${message.id}` : message.type, message);
  }

  /** Gives the frame until `ms` from now to greet; then the session hears it failed. */
  #wait(ms: number): void {
    clearTimeout(this.#deadline);
    this.#deadline = setTimeout(() => {
      if (this.#port || this.#destroyed) return;
      this.#failed = `the isolated fields at ${this.element.src.replace(/#.*$/, '')} did not load (is the kit serving them, and does its frame-ancestors name this page's origin?)`;
      this.#link?.failed(this.#failed);
    }, ms);
  }

  /** Calls in flight through a channel that is gone: lost, as a network failure (a create is then looked for). */
  #dropPending(): void {
    for (const [id, pending] of this.#pending) this.#settle(id, () => pending.reject(unanswered(pending.call, 'network')));
  }

  #receive(message: FromFrame): void {
    switch (message.type) {
      case 'report':
        this.#report = message.report;
        this.#link?.report(message.report, message.edited);
        return;
      case 'blur':
        if (FRAME_FIELDS[this.kind].includes(message.field)) this.#session?.blur(message.field as FieldName);
        return;
      case 'submit':
        this.#options.onSubmit?.();
        return;
      case 'height':
        if (Number.isFinite(message.height) && message.height > 0) this.element.style.blockSize = `${Math.ceil(message.height)}px`;
        return;
      case 'sent':
        this.#answered(message);
    }
  }

  #send(call: IsolatedCall, body: Record<string, unknown>, proof: IsolatedProof): Promise<EndpointAnswer<unknown>> {
    if (this.#destroyed) return Promise.reject(unanswered(call, 'network'));
    const id = ++this.#sent;
    return new Promise((resolve, reject) => {
      // The frame's own fetch gives up after DEFAULT_TIMEOUT_MS; a frame that says nothing at all is given up a little later.
      const timer = setTimeout(() => this.#settle(id, () => reject(unanswered(call, 'timeout'))), DEFAULT_TIMEOUT_MS + 5_000);
      this.#pending.set(id, { call, resolve, reject, timer });
      this.#post({ type: 'send', id, call, body, proof });
    });
  }

  #answered(message: Extract<FromFrame, { type: 'sent' }>): void {
    const pending = this.#pending.get(message.id);
    if (!pending) return;
    this.#settle(message.id, () => {
      if ('failure' in message) {
        if (message.failure === 'refused') pending.reject(new EndpointError('CONFIG', `${pending.call}: this frame does not send it`));
        // The frame's own fetch failed: the session tells a refused preflight from the network by its next call.
        else if (message.failure === 'network') pending.reject(new FrameCallUnanswered(pending.call));
        else pending.reject(unanswered(pending.call, message.failure));
        return;
      }
      answerOf(pending.call, responseOf(message.response)).then(pending.resolve, pending.reject);
    });
  }

  #settle(id: number, settle: () => void): void {
    const pending = this.#pending.get(id);
    if (!pending) return;
    this.#pending.delete(id);
    clearTimeout(pending.timer);
    settle();
  }
}

/** The kit's answer as the frame passed it on, in the shape `answerOf` reads. */
function responseOf(response: SentResponse): Parameters<typeof answerOf>[1] {
  const headers: Record<string, string | null> = { [EXPIRES_IN_HEADER.toLowerCase()]: response.expiresIn, [ORDER_TOKEN_HEADER.toLowerCase()]: response.orderToken };
  return {
    status: response.status,
    headers: { get: (name: string) => headers[name.toLowerCase()] ?? null } as Headers,
    json: async () => JSON.parse(response.body) as unknown,
  };
}

function randomNonce(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
}
