/**
 * What `<svc-checkout>` does besides rendering, from its first frame: it fetches its chunks (the session's, the
 * forms', after the first frame is painted, again when the browser is back online), links the session when it comes
 * (controllers/session-link.ts, in the session's chunk) and hands it the host's settings, and keeps for it what the
 * payer did in the first frame. The host renders `view()`, and nothing it renders starts anything.
 */
import type { ReactiveController, ReactiveControllerHost } from 'lit';
import type { CheckoutSession, CheckoutSettings, CheckoutState as SessionState, FieldName } from '../../checkout/index.js';
import { firstFrameOf } from '../../checkout/first-frame.js';
import { formTransition, type FormEvent } from '../../checkout/form.js';
import { pageStorage, pageUrl } from '../../checkout/page.js';
import { PAY_METHODS, type PayMethod } from '../../core/pay-methods.js';
import type { ClientErrorCode } from '../../core/errors.js';
import { CHECKOUT_CONTEXT_KEY } from '../context-key.js';
import { SvcErrorEvent } from '../events/svc-error.js';
import { addShippedTerms } from '../i18n/registry.js';
import { lazy } from '../lazy.js';
import { loadForm, prefill } from '../parts/forms.js';
import { formView, type CheckoutActions, type CheckoutState, type FormActions } from '../state.js';
import type { LocalizeController } from './localize.js';

type Engine = typeof import('../engine.js');

/** The session's chunk, with the English words of the steps. */
const loadEngine = lazy(
  (): Promise<Engine> =>
    import('../engine.js').then((engine) => {
      addShippedTerms('en', engine.englishSteps);
      return engine;
    }),
);
/** What the first frame reads of the page: whether an order of this page is kept (the session then decides). */
const environment = { storage: pageStorage(), pageUrl };

/** What the payer did before the session came: the form's events, and a blur. */
type EarlyEvent = FormEvent | { type: 'blur'; name: FieldName };

/** A chunk the element needs: the session's, a form's, or the words of its language. */
type Chunk = 'session' | PayMethod | 'words';

export class CheckoutController implements ReactiveController {
  readonly #host: ReactiveControllerHost & HTMLElement;
  readonly #localize: LocalizeController;
  #engine: Engine | undefined;
  /** The session and its link to the host, once the session's chunk has come. */
  #link: InstanceType<Engine['SessionLink']> | undefined;
  /** What the payer did in the first frame, replayed into the session, in order, when it takes over. */
  #early: EarlyEvent[] | undefined = [];
  /** The first frame's state, when the settings show a form before the session comes. */
  #first: SessionState | undefined;
  /** The settings last taken: by the session once it came (it is handed them again then), else by the first frame. */
  #settings: CheckoutSettings | undefined;
  /** The chunks that could not be fetched (offline, a site that moved its files). */
  readonly #unloaded = new Set<Chunk>();
  /** The shop's requests for `checkoutContext` made before the session came, with where each came from. */
  #contextRequests: [EventTarget, Event][] = [];
  /**
   * When the first frame was painted and when the payer first acted (`performance.now()`): noted here, told by the
   * session's chunk (controllers/timings.ts), which may come after both.
   */
  declare paintedAt: number | undefined;
  declare interactedAt: number | undefined;

  constructor(host: ReactiveControllerHost & HTMLElement, localize: LocalizeController) {
    this.#host = host;
    this.#localize = localize;
    host.addController(this);
    // Held until the session's chunk brings the provider, which hears them again.
    host.addEventListener('context-request', (event) => {
      if (this.#link || (event as Event & { context?: unknown }).context !== CHECKOUT_CONTEXT_KEY) return;
      event.stopPropagation();
      this.#contextRequests.push([event.composedPath()[0]!, event]);
    });
  }

  get session(): CheckoutSession | undefined {
    return this.#link?.session;
  }

  get engine(): Engine | undefined {
    return this.#engine;
  }

  /** What the live region says. */
  get announcement(): string {
    return this.#link?.announcement ?? '';
  }

  /** Whether the session's chunk, or that of the form shown, could not be fetched. */
  unloaded(method: PayMethod | undefined): boolean {
    return this.#unloaded.has('session') || (method !== undefined && this.#unloaded.has(method));
  }

  /** The commands the parts send: the form's go to the session, or are kept for it while the first frame is all there is. */
  get actions(): CheckoutActions {
    return { ...this.#formActions, ...this.#link?.actions } as CheckoutActions;
  }

  readonly #formActions: FormActions = {
    // A form whose chunk failed is fetched again when chosen again, not at every render.
    selectMethod: (method) => {
      this.#unloaded.delete(method);
      this.#send({ type: 'select-method', method });
    },
    input: (name, value) => this.#send({ type: 'input', name, value }),
    // Chromium blurs a focused input while Lit removes it, in the middle of a part's update: handled once it is done.
    blur: (name) => queueMicrotask(() => this.#send({ type: 'blur', name })),
    // Pay: a session that could not load is said in the element; any other rejection is a fault, left for the page.
    submit: () => {
      this.interactedAt ??= performance.now();
      return this.submit().catch((error: unknown) => {
        if (this.#link) throw error;
      });
    },
  };

  #send(event: EarlyEvent): void {
    this.interactedAt ??= performance.now();
    const session = this.session;
    if (!session || this.#early) {
      this.#early?.push(event);
      this.#host.requestUpdate();
    } else if (event.type === 'select-method') session.selectMethod(event.method);
    else if (event.type === 'input') session.input(event.name, event.value);
    else session.blur(event.name);
  }

  /**
   * Sends the form; before the session came, once it has taken over what the payer did (a second call while one is
   * in flight gets the session's same promise).
   */
  submit(): Promise<void> {
    const session = this.session;
    return session && !this.#early ? session.submit() : this.configured().then((configured) => configured.submit());
  }

  /** The session once it is configured, with what the payer did in the first frame. */
  async configured(): Promise<CheckoutSession> {
    await this.#host.updateComplete;
    return this.session as CheckoutSession;
  }

  /**
   * The host's settings, at each of its updates: to the session, which then takes over what the first frame kept;
   * before it, the first frame's form (or nothing, and the session is fetched at once to decide).
   */
  configure(settings: CheckoutSettings): void {
    const session = this.session;
    // The same settings (the host's update changed none): nothing to resolve, read or check again, once the session
    // has them (it is handed them when it comes, while it has not taken over what the first frame kept).
    if (settings === this.#settings && !(session && this.#early)) return;
    this.#settings = settings;
    if (session) {
      session.configure(settings);
      const early = this.#early;
      this.#early = undefined;
      for (const event of early ?? []) this.#send(event);
      return;
    }
    this.#first = firstFrameOf(settings, environment);
    if (!this.#first) this.#fetchSession();
  }

  /** What the host renders: the session's state in words, or the first frame's form with what the payer did. */
  view(): CheckoutState | undefined {
    if (this.#link) return this.#link.view();
    // What the shop knows of the payer fills the forms whose chunks came, as the session will (parts/forms.ts).
    const first = this.#first && prefill ? prefill(this.#first, this.#settings!) : this.#first;
    if (!first) return undefined;
    return formView((this.#early ?? []).reduce((state, event) => (event.type === 'blur' ? state : formTransition(state, event)), first));
  }

  /** The form the host is about to show: its chunk is fetched, unless it already failed (choosing it again retries). */
  showing(method: PayMethod): void {
    if (!this.#unloaded.has(method)) this.#fetchForm(method);
  }

  /** Loads the session's chunk and links the session to the host (once); the host's next update configures it. */
  start(): Promise<CheckoutSession> {
    return loadEngine().then(
      (module) => {
        this.#loaded('session', true);
        if (!this.#link) {
          this.#engine = module;
          this.#link = new module.SessionLink(this.#host, this.#localize, this.#contextRequests.splice(0), this);
          this.#host.requestUpdate();
        }
        return this.#link.session;
      },
      (error: unknown) => {
        this.#loaded('session', false, error);
        throw error;
      },
    );
  }

  /** Words the network lost: the page is told (svc-error), and the element speaks English. */
  wordsLost(reason: unknown): void {
    this.#loaded('words', false, reason);
  }

  /**
   * Whether a chunk the element needs came: one that did not is said in the element and told to the page as an
   * `svc-error` (`UNLOADED`, with the browser's reason), each time it goes missing, never thrown at the page.
   */
  #loaded(chunk: Chunk, came: boolean, error?: unknown): void {
    if (this.#unloaded.has(chunk) !== came) return;
    this.#unloaded[came ? 'delete' : 'add'](chunk);
    if (!came) this.#host.dispatchEvent(new SvcErrorEvent({ code: 'UNLOADED' satisfies ClientErrorCode, message: String(error), retryable: true }));
    this.#host.requestUpdate();
  }

  #fetchForm(method: PayMethod): void {
    loadForm(method).then(
      () => this.#loaded(method, true),
      (error: unknown) => this.#loaded(method, false, error),
    );
  }

  /** Fetches the session ahead of any ask: a failure is said in the element, not thrown at the page. */
  #fetchSession(): void {
    this.start().catch(() => undefined);
  }

  /**
   * The rest is fetched once the first frame is painted, when the page is next idle: queued from the next animation
   * frame, after its paint, as an idle callback (a timeout where there is none), so that the tasks the page queued for
   * after the paint (its first input, its own scripts) go first (README, Performance). A hidden page paints no frame:
   * there, at once; a frame whose animation frames are held back (a throttled iframe out of view) fetches after a
   * second all the same. Each chunk is fetched once, whichever asks first.
   */
  fetchAfterPaint(): void {
    const fetchNow = () => {
      this.#fetchSession();
      // The forms of the other methods, ahead: one that fails is said only if the payer chooses it.
      for (const method of PAY_METHODS) loadForm(method).catch(() => undefined);
    };
    const fetchTheRest = () => (typeof requestIdleCallback === 'function' ? requestIdleCallback(fetchNow, { timeout: 250 }) : setTimeout(fetchNow));
    if (document.visibilityState === 'hidden') fetchNow();
    else {
      requestAnimationFrame(() => {
        this.paintedAt = performance.now();
        fetchTheRest();
      });
      setTimeout(fetchNow, 1_000);
    }
  }

  /**
   * The browser is back online: the lost chunks of an element on the page are asked for again, at each such event
   * (one can come before the network works). The words wait for a reload.
   */
  readonly #online = (): void => {
    for (const chunk of this.#unloaded) {
      if (chunk === 'session') this.#fetchSession();
      else if (chunk !== 'words') this.#fetchForm(chunk);
    }
  };

  hostConnected(): void {
    addEventListener('online', this.#online);
  }

  hostDisconnected(): void {
    removeEventListener('online', this.#online);
  }
}
