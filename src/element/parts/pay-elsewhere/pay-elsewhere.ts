/**
 * "Pay on your phone" under the form (docs/pay-links.md): a chunk of its own, fetched with the session's after the
 * first frame, so that it costs the first frame nothing. Opened, it asks the kit (`KIT_PAGE_PATHS.handoff`, proved by
 * the element's checkout token) for a payment link of this same checkout and its QR code, drawn by the kit, and shows
 * both, the link with a copy button.
 *
 * While it is open, and once on each return to the page (opened or not), this page checks lightly whether the checkout
 * got an order elsewhere: the kit's record (a store read, no query to the service) every few seconds while the page is
 * seen, counted against the client's status limit. An attempt the record names is looked up behind the form (one status
 * query; one found empty, as a create refused here leaves it, not again for 30 s, ELSEWHERE_RECHECK_MS, unless the payer
 * has just come back to the page), and an order found there is followed live, as an order this page made
 * (`session.followElsewhere`): the status stream, then its receipt.
 */
import { css, html, nothing } from 'lit';
import type { CheckoutActions, CheckoutContext } from '../../state.js';
import { CheckoutPart } from '../checkout-part.js';

/** How often a page whose payer opened the offer checks for an order made elsewhere: 20 a minute, of the 120 a client has. */
export const ELSEWHERE_CHECK_MS = 3_000;
/** Checks stop after this long without an order: a return to the page checks once, and starts them again. */
const CHECKING_FOR_MS = 15 * 60_000;

interface Offer {
  /** The payer opened it on this page: the light checks run. */
  opened: boolean;
  link?: { url: string; qr: string } | undefined;
  failed?: boolean;
  copied?: boolean;
  /** Checks run until then (ms since the epoch). */
  until: number;
}

/**
 * What each checkout's offer holds, kept over the part's own life (the form rendered anew after a lookup): keyed by its
 * commands, which are the same object for as long as the element's session is.
 */
const OFFERS = new WeakMap<object, Offer>();

export class SvcPayElsewhere extends CheckoutPart {
  static override styles = [
    ...CheckoutPart.styles,
    css`
      /*
       * Its place, the element's min-block-size: 3.75em, the same from the first frame on (before this part was
       * defined) and once it is: the space above the button, and the button.
       */
      :host {
        display: block;
        box-sizing: border-box;
        padding-block-start: var(--_space);
      }
      .secondary {
        background: transparent;
        color: var(--_primary);
        border: 2px solid var(--_primary);
        font-weight: 600;
        min-block-size: max(2.75em, 44px);
      }
      .panel {
        display: grid;
        justify-items: center;
        gap: calc(var(--_space) / 2);
        margin-block-start: calc(var(--_space) / 2);
      }
      img {
        width: min(12em, 100%);
        height: auto;
        background: #fff;
        border-radius: calc(var(--_radius) / 2);
      }
      .link {
        display: flex;
        gap: calc(var(--_space) / 2);
        width: 100%;
      }
      .link input {
        flex: 1;
        min-width: 0;
      }
      /* Not offered (the host), or closed (the panel): nothing, whatever display the rules above give. */
      :host([hidden]),
      [hidden] {
        display: none;
      }
      @media print {
        :host {
          display: none;
        }
      }
    `,
  ];

  #timer: ReturnType<typeof setTimeout> | undefined;
  #checking = false;

  /** The session's commands (the same object for the session's life): what the offer is kept by. */
  get #actions(): CheckoutActions | undefined {
    const actions = this.context?.actions;
    return actions && typeof actions.payOnPhone === 'function' ? actions : undefined;
  }

  get #offer(): Offer | undefined {
    const actions = this.#actions;
    return actions && OFFERS.get(actions.payOnPhone);
  }

  #set(patch: Partial<Offer>): void {
    const actions = this.#actions;
    if (!actions) return;
    OFFERS.set(actions.payOnPhone, { opened: false, until: 0, ...OFFERS.get(actions.payOnPhone), ...patch });
    this.requestUpdate();
  }

  get #language(): string {
    return this.context?.localize.term.$code ?? 'en';
  }

  protected override renderPart(context: CheckoutContext) {
    // Not offered (a checkout without a token, the development-only `orders: 'browser'` mode): no place taken either.
    this.hidden = !this.#actions?.canPayOnPhone() || context.state.step.kind !== 'form';
    if (this.hidden) return nothing;
    const t = context.localize.term;
    const offer = this.#offer;
    const opened = offer?.opened ?? false;
    return html`
      <button class="secondary" part="button-secondary button-pay-on-phone" type="button" aria-expanded=${String(opened)} aria-controls="panel" @click=${() => this.#toggle()}>
        ${t.payOnPhone}
      </button>
      <div id="panel" class="panel" part="pay-on-phone" ?hidden=${!opened}>
        ${opened
          ? html`<p class="hint">${t.payOnPhoneHint}</p>
              ${offer?.link
                ? html`<img part="qr" src=${`data:image/svg+xml;charset=utf-8,${encodeURIComponent(offer.link.qr)}`} alt=${t.payOnPhoneQr} />
                    <div class="link">
                      <label class="visually-hidden" for="link">${t.payOnPhoneLink}</label>
                      <input id="link" part="input link" readonly .value=${offer.link.url} @focus=${(event: Event) => (event.target as HTMLInputElement).select()} />
                      <button class="secondary" part="button-secondary button-copy-link" type="button" @click=${() => this.#copy()}>${t.copyLink}</button>
                    </div>
                    <p role="status" class="hint">${offer.copied ? t.linkCopied : ''}</p>`
                : offer?.failed
                  ? html`<p class="alert" part="alert alert-error" role="alert">${t.payOnPhoneFailed}</p>`
                  : nothing}`
          : nothing}
      </div>
    `;
  }

  async #toggle(): Promise<void> {
    const offer = this.#offer;
    if (offer?.opened) {
      this.#set({ opened: false });
      return;
    }
    this.#set({ opened: true, failed: false, until: Date.now() + CHECKING_FOR_MS });
    this.#schedule(0);
    if (offer?.link) return;
    try {
      this.#set({ link: await this.#actions!.payOnPhone(this.#language) });
    } catch {
      this.#set({ failed: true });
    }
  }

  async #copy(): Promise<void> {
    const url = this.#offer?.link?.url;
    if (!url) return;
    try {
      await navigator.clipboard.writeText(url);
      this.#set({ copied: true });
    } catch {
      // No clipboard (an insecure page, a refusal): the link is selected for the payer to copy.
      this.renderRoot.querySelector<HTMLInputElement>('#link')?.select();
    }
  }

  /**
   * The next light check, while the offer was opened, the page is seen and the form shown (`once`: this one at least,
   * the payer back on the page: an attempt found empty is asked about again then).
   */
  #schedule(delay: number, once = false): void {
    clearTimeout(this.#timer);
    const offer = this.#offer;
    const checking = once || (offer?.opened && Date.now() <= offer.until);
    if (!this.isConnected || !checking || document.visibilityState === 'hidden') return;
    this.#timer = setTimeout(() => void this.#check(once), delay);
  }

  async #check(seen = false): Promise<void> {
    if (this.#checking || this.context?.state.step.kind !== 'form') return;
    this.#checking = true;
    try {
      await this.#actions?.checkElsewhere(this.#language, seen);
    } catch {
      // Offline for a moment: the next check tries again.
    } finally {
      this.#checking = false;
      this.#schedule(ELSEWHERE_CHECK_MS);
    }
  }

  /**
   * Back on the page: one check at once, whether or not the payer opened the offer (a link of this checkout may have
   * reached their phone another way: the shop's chat), and the checks run again for a while if they had opened it. A
   * page kept in view checks nothing until then: the return to it is when its payer looks again.
   */
  readonly #visible = (): void => {
    if (document.visibilityState !== 'visible' || !this.#actions?.canPayOnPhone()) return;
    if (this.#offer?.opened) this.#set({ until: Date.now() + CHECKING_FOR_MS });
    this.#schedule(0, true);
  };

  override connectedCallback(): void {
    super.connectedCallback();
    // Its parts, named here rather than in the element's first frame, which draws only the tag.
    this.setAttribute('part', 'pay-on-phone');
    this.setAttribute('exportparts', 'button-secondary, input, alert, alert-error, qr');
    document.addEventListener('visibilitychange', this.#visible);
    this.#schedule(0);
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    document.removeEventListener('visibilitychange', this.#visible);
    clearTimeout(this.#timer);
  }
}
