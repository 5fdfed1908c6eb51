/**
 * The element's link to its session, made when the session's chunk has loaded (src/element/engine.ts): the session
 * runs while the element is on the page, its changes update the element, its events become the element's DOM
 * events (`svc-ready` once the state it describes is rendered; announcements said in the live region), focus follows
 * the step, and `checkoutContext` is provided. What the first frame needs of it is in controllers/checkout.ts.
 */
import type { ReactiveController, ReactiveControllerHost } from 'lit';
import { CheckoutSession, type Announcement, type CheckoutEvent } from '../../checkout/index.js';
import type { PayMethod } from '../../core/pay-methods.js';
import { domEventOf } from '../events/table.js';
import { announcementText } from '../messages.js';
import type { CheckoutState, HandoffActions, StepActions } from '../state.js';
import { stepActions } from '../step-commands.js';
import { handoffActions } from '../handoff-commands.js';
import { loadOffer } from '../parts/pay-elsewhere/offer.js';
import { viewOf } from '../view.js';
import type { LocalizeController } from './localize.js';
import { provideCheckoutContext } from './provide-context.js';
import { StepFocusController } from './step-focus.js';
import { TimingController, type FirstFrameMarks } from './timings.js';

type Host = ReactiveControllerHost & HTMLElement;

export class SessionLink implements ReactiveController {
  readonly session = new CheckoutSession();
  readonly actions: StepActions & HandoffActions;
  /** What the element's live region says now, kept as the session said it: worded in the element's language at each render. */
  #spoken: Announcement | undefined;
  readonly #host: Host;
  readonly #localize: LocalizeController;
  /** `svc-ready` to dispatch once the state it describes is rendered. */
  #ready: { methods: PayMethod[]; resumed: boolean } | undefined;

  /**
   * `contextRequests`: the shop's requests for the context made before, asked again now from where they came; `marks`:
   * when the first frame was painted and the payer first acted.
   */
  constructor(host: Host, localize: LocalizeController, contextRequests: readonly [EventTarget, Event][], marks: FirstFrameMarks) {
    this.#host = host;
    this.#localize = localize;
    const session = this.session;
    this.actions = {
      ...stepActions(session),
      ...handoffActions(session, () => (host as Host & { credentials?: RequestCredentials }).credentials),
      whereToPay: (language) => whereToPayOf(host, language),
    };
    new StepFocusController(host, session);
    new TimingController(host, session, marks);
    provideCheckoutContext(host, session);
    for (const [target, event] of contextRequests) target.dispatchEvent(event);
    session.subscribe(() => host.requestUpdate());
    session.on((event) => this.#dispatch(event));
    host.addController(this);
  }

  /** What the element's live region says now, in the element's language (a change of language re-words it). */
  get announcement(): string {
    return this.#spoken ? announcementText(this.#spoken, this.#localize) : '';
  }

  /** The session's state in words of the element's language. */
  view(): CheckoutState {
    return viewOf(this.session.state, this.#localize);
  }

  hostConnected(): void {
    this.session.resume();
  }

  hostDisconnected(): void {
    this.session.pause();
  }

  hostUpdated(): void {
    // "Pay on your phone", whose tag the element draws under the form from its first frame: its part (which hides
    // itself when the checkout cannot be paid elsewhere), fetched once the session is here.
    loadOffer().catch(() => undefined);
    const detail = this.#ready;
    if (!detail) return;
    this.#ready = undefined;
    this.#host.dispatchEvent(domEventOf({ type: 'ready', detail }));
  }

  #dispatch(event: CheckoutEvent): void {
    if (event.type === 'ready') this.#ready = event.detail;
    else if (event.type === 'announce') this.#announce(event.detail);
    else if (!this.#host.dispatchEvent(domEventOf(event)) && event.type === 'before-redirect') event.preventDefault();
  }

  /** Says an announcement in the live region: cleared first, so that the same words said twice are said twice. */
  #announce(announcement: Announcement): void {
    this.#spoken = undefined;
    this.#host.requestUpdate();
    requestAnimationFrame(() => {
      this.#spoken = announcement;
      this.#host.requestUpdate();
    });
  }
}

/**
 * The shop's words on where a reference code is paid, in `language`: the element's `where-to-pay-<language>` attribute
 * (`where-to-pay-ar`), else `where-to-pay`. Read when the voucher shows, never by the first frame.
 */
function whereToPayOf(host: HTMLElement, language: string): string | undefined {
  const base = language.toLowerCase().split('-')[0];
  const words = host.getAttribute(`where-to-pay-${base}`) ?? host.getAttribute('where-to-pay');
  return words?.trim() || undefined;
}
