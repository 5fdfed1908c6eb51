/**
 * What `<svc-checkout>` does besides rendering: it fetches its chunks (the session's, the forms', after the first
 * frame is painted, again when the browser is back online), holds the session and hands it the host's settings,
 * keeps what the payer did in the first frame for it, and turns the session's events into the host's DOM events.
 * The host renders `view()`, and nothing it renders starts anything.
 */
import type { ReactiveController, ReactiveControllerHost } from 'lit';
import type { CheckoutEvent, CheckoutSession, CheckoutSettings, CheckoutState as SessionState, FieldName } from '../../checkout/index.js';
import { firstFrameOf } from '../../checkout/first-frame.js';
import { formTransition, type FormEvent } from '../../checkout/form.js';
import { pageStorage, pageUrl } from '../../checkout/page.js';
import { PAY_METHODS, type PayMethod } from '../../core/pay-methods.js';
import type { ClientErrorCode } from '../../core/errors.js';
import { SvcErrorEvent } from '../events/svc-error.js';
import { addShippedTerms } from '../i18n/registry.js';
import { lazy } from '../lazy.js';
import { loadForm } from '../parts/forms.js';
import { formView, type CheckoutActions, type CheckoutState, type FormActions, type StepActions } from '../state.js';
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
  #session: CheckoutSession | undefined;
  #engine: Engine | undefined;
  /** What the payer did in the first frame, replayed into the session, in order, when it takes over. */
  #early: EarlyEvent[] | undefined = [];
  /** The first frame's state, when the settings show a form before the session comes. */
  #first: SessionState | undefined;
  /** The chunks that could not be fetched (offline, a site that moved its files). */
  readonly #unloaded = new Set<Chunk>();
  /** A submit asked for before the session came: a second one gets the same promise. */
  #submitting: Promise<void> | undefined;
  /** `svc-ready` to dispatch once the state it describes is rendered. */
  #ready: { methods: PayMethod[]; resumed: boolean } | undefined;
  /** What the host's live region says now. */
  announcement = '';

  constructor(host: ReactiveControllerHost & HTMLElement, localize: LocalizeController) {
    this.#host = host;
    this.#localize = localize;
    host.addController(this);
  }

  get session(): CheckoutSession | undefined {
    return this.#session;
  }

  get engine(): Engine | undefined {
    return this.#engine;
  }

  /** Whether the session's chunk, or that of the form shown, could not be fetched. */
  unloaded(method: PayMethod | undefined): boolean {
    return this.#unloaded.has('session') || (method !== undefined && this.#unloaded.has(method));
  }

  /** The commands of the steps, which come with the session. */
  #stepActions: StepActions | undefined;

  /** The commands the parts send: the form's go to the session, or are kept for it while the first frame is all there is. */
  get actions(): CheckoutActions {
    return { ...this.#formActions, ...this.#stepActions } as CheckoutActions;
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
    submit: () =>
      this.submit().catch((error: unknown) => {
        if (this.#session) throw error;
      }),
  };

  #send(event: EarlyEvent): void {
    const session = this.#session;
    if (!session || this.#early) {
      this.#early?.push(event);
      this.#host.requestUpdate();
    } else if (event.type === 'select-method') session.selectMethod(event.method);
    else if (event.type === 'input') session.input(event.name, event.value);
    else session.blur(event.name);
  }

  /** Sends the form; before the session came, once it has taken over what the payer did. */
  submit(): Promise<void> {
    if (this.#session && !this.#early) return this.#session.submit();
    this.#submitting ??= this.configured()
      .then((session) => session.submit())
      .finally(() => (this.#submitting = undefined));
    return this.#submitting;
  }

  /** The session once it is configured, with what the payer did in the first frame. */
  async configured(): Promise<CheckoutSession> {
    await this.#host.updateComplete;
    return this.#session as CheckoutSession;
  }

  /**
   * The host's settings, at each of its updates: to the session, which then takes over what the first frame kept;
   * before it, the first frame's form (or nothing, and the session is fetched at once to decide).
   */
  configure(settings: CheckoutSettings): void {
    const session = this.#session;
    if (session && this.#engine) {
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
    if (this.#session && this.#engine) return this.#engine.viewOf(this.#session.state, this.#localize);
    const first = this.#first;
    if (!first) return undefined;
    return formView((this.#early ?? []).reduce((state, event) => (event.type === 'blur' ? state : formTransition(state, event)), first));
  }

  /** The form the host is about to show: its chunk is fetched, unless it already failed (choosing it again retries). */
  showing(method: PayMethod): void {
    if (!this.#unloaded.has(method)) this.#fetchForm(method);
  }

  /** Loads the session's chunk and makes the session (once); the host's next update configures it. */
  start(): Promise<CheckoutSession> {
    return loadEngine().then(
      (module) => {
        this.#loaded('session', true);
        if (this.#session) return this.#session;
        const session = new module.CheckoutSession();
        this.#engine = module;
        this.#session = session;
        this.#stepActions = module.stepActions(session);
        new module.StepFocusController(this.#host, session);
        session.subscribe(() => this.#host.requestUpdate());
        session.on((event) => this.#dispatch(event));
        if (this.#host.isConnected) session.resume();
        this.#host.requestUpdate();
        return session;
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
      requestAnimationFrame(fetchTheRest);
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
    this.#session?.resume();
    addEventListener('online', this.#online);
  }

  hostDisconnected(): void {
    this.#session?.pause();
    removeEventListener('online', this.#online);
  }

  hostUpdated(): void {
    if (!this.#ready) return;
    const detail = this.#ready;
    this.#ready = undefined;
    this.#host.dispatchEvent(this.#engine!.domEventOf({ type: 'ready', detail }));
  }

  /** Says `text` in the live region: cleared first, so that the same words said twice are said twice. */
  #announce(text: string): void {
    this.announcement = '';
    this.#host.requestUpdate();
    requestAnimationFrame(() => {
      this.announcement = text;
      this.#host.requestUpdate();
    });
  }

  /** The session's events as the host's DOM events (`ready` once its state is rendered; `announce` said aloud). */
  #dispatch(event: CheckoutEvent): void {
    const engine = this.#engine!;
    if (event.type === 'ready') this.#ready = event.detail;
    else if (event.type === 'announce') this.#announce(engine.announcementText(event.detail, this.#localize));
    else if (!this.#host.dispatchEvent(engine.domEventOf(event)) && event.type === 'before-redirect') event.preventDefault();
  }
}
