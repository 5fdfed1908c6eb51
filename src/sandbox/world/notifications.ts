/**
 * The messages the sandbox "sends" to payers: the reference code by SMS and email in the language the order
 * chose (English or Arabic), and the OTP of a bank account payment. Nothing leaves the machine; the control
 * API lists them.
 */
import { formatMinorUnits, groupReferenceCode, type Notify, type NotifyLanguage } from '../../core/index.js';
import type { Order } from './orders.js';

export interface SentMessage {
  id: number;
  orderNo: string;
  reference: string;
  channel: 'SMS' | 'EMAIL';
  to: string;
  language: NotifyLanguage;
  subject?: string;
  text: string;
  /** Sandbox time, milliseconds. */
  at: number;
}

interface Wording {
  locale: string;
  sms(values: Values): string;
  subject(values: Values): string;
  email(values: Values): string;
}

interface Values {
  merchant: string;
  name: string;
  amount: string;
  code: string;
  until: string;
  reference: string;
}

const WORDING: Record<NotifyLanguage, Wording> = {
  English: {
    locale: 'en-GB',
    sms: (v) => `${v.merchant}: pay ${v.amount} with reference code ${v.code} before ${v.until}. Order ${v.reference}.`,
    subject: (v) => `Your reference code for ${v.merchant}: ${v.code}`,
    email: (v) =>
      `Hello ${v.name},\n\nTo pay ${v.amount} to ${v.merchant}, use reference code ${v.code} at any payment point ` +
      `before ${v.until}.\n\nOrder ${v.reference}.`,
  },
  Arabic: {
    locale: 'ar-EG',
    sms: (v) => `${v.merchant}: ادفع ${v.amount} باستخدام الرمز المرجعي ${v.code} قبل ${v.until}. الطلب ${v.reference}.`,
    subject: (v) => `الرمز المرجعي لطلبك لدى ${v.merchant}: ${v.code}`,
    email: (v) =>
      `مرحبًا ${v.name}،\n\nلدفع ${v.amount} إلى ${v.merchant}، استخدم الرمز المرجعي ${v.code} في أي نقطة دفع ` +
      `قبل ${v.until}.\n\nالطلب ${v.reference}.`,
  },
};

export interface OutboxData {
  messages: SentMessage[];
  counter: number;
}

export class Outbox {
  #messages: SentMessage[] = [];
  #counter = 0;
  readonly #listeners: ((message: SentMessage) => void)[] = [];

  onSent(listener: (message: SentMessage) => void): void {
    this.#listeners.push(listener);
  }

  /** The reference code, through the channels `notifyMethod` names, in `notifyLanguage`. */
  sendReferenceCode(order: Order, notify: Notify, merchantName: string, at: number): SentMessage[] {
    const language = notify.notifyLanguage;
    const wording = WORDING[language];
    const values: Values = {
      merchant: merchantName,
      name: notify.notifyUserName,
      amount: formatMinorUnits(order.amount.total, order.amount.currency, wording.locale),
      code: groupReferenceCode(order.referenceCode ?? ''),
      until: new Intl.DateTimeFormat(wording.locale, { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' }).format(
        order.expiresAt,
      ),
      reference: order.reference,
    };
    const method = notify.notifyMethod ?? 'BOTH';
    const sent: SentMessage[] = [];
    if ((method === 'BOTH' || method === 'SMS') && notify.notifyUserMobile) {
      sent.push(this.#record({ order, channel: 'SMS', to: notify.notifyUserMobile, language, text: wording.sms(values), at }));
    }
    if ((method === 'BOTH' || method === 'EMAIL') && notify.notifyUserEmail) {
      sent.push(
        this.#record({
          order,
          channel: 'EMAIL',
          to: notify.notifyUserEmail,
          language,
          subject: wording.subject(values),
          text: wording.email(values),
          at,
        }),
      );
    }
    return sent;
  }

  /** The OTP of a bank account payment, by SMS to the account holder (the number is masked). */
  sendOtp(order: Order, otp: string, at: number): SentMessage {
    const to = `account ••••${order.bank?.accountLast4 ?? ''}`;
    return this.#record({ order, channel: 'SMS', to, language: 'English', text: `Your verification code is ${otp}.`, at });
  }

  list(filter: { orderNo?: string } = {}): SentMessage[] {
    return this.#messages.filter((message) => filter.orderNo === undefined || message.orderNo === filter.orderNo);
  }

  clear(): void {
    this.#messages = [];
  }

  toData(): OutboxData {
    return { messages: this.#messages, counter: this.#counter };
  }

  restore(data: OutboxData): void {
    this.#messages = [...data.messages];
    this.#counter = data.counter;
  }

  #record(entry: Omit<SentMessage, 'id' | 'orderNo' | 'reference'> & { order: Order }): SentMessage {
    const { order, ...rest } = entry;
    this.#counter += 1;
    const message: SentMessage = { id: this.#counter, orderNo: order.orderNo, reference: order.reference, ...rest };
    this.#messages.push(message);
    for (const listener of this.#listeners) listener(message);
    return message;
  }
}
