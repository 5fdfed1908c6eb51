/**
 * The dashboard's script, run in the browser. It is one self-contained function — no imports, no outer
 * variables — because page.ts serves its source text as /sandbox/dashboard.js; TypeScript still checks it
 * against the DOM. Everything it shows comes from the sandbox's event stream and goes on the page as text
 * nodes and attribute values, never as markup: orders carry what payers typed.
 */
export function dashboardApp(win: Window, doc: Document): void {
  interface LifeEntry { at: string; status?: string; what: string }
  interface OrderView {
    orderNo: string; reference: string; payMethod: string; status: string; amount: { total: number; currency: string };
    productName: string; nextAction: string | null; referenceCode: string | null; sn: string | null; failureCode: string | null;
    expiresAt: string; life: LifeEntry[]; plan: { status: string; at: string | null; expectationId: string } | null;
  }
  interface RefundView {
    reference: string; merchantId: string; originalReference: string; amount: { total: number; currency: string };
    orderStatus: string; errorCode: string | null; settlesAt: string; life: LifeEntry[];
  }
  interface MessageView { id: number; orderNo: string; reference: string; channel: string; to: string; subject?: string; text: string; at: number }
  interface AttemptView {
    id: number; attempt: number; trigger: string; fault?: string; note?: string; at: number; headers: Record<string, string>;
    status: number | null; answer?: string; error?: string; acknowledged: boolean;
  }
  interface DeliveryView { notifyId: string; orderNo: string; reference: string; url: string | null; state: string; nextAttemptAt: number | null; attempts: AttemptView[] }
  interface FaultView { id: string; kind: string; remaining: number; delayMs?: number; orderNo?: string; reference?: string; field?: string; afterMinutes?: number }
  interface ExpectationView {
    id: string; target: string; reference: string; nextAction?: string; outcome?: string; failureCode?: string; afterMinutes?: number;
    state: string; orderNo?: string; note?: string;
  }
  interface Vocabulary {
    faultKinds: string[]; deliveryFaults: Record<string, { does: string; kit: string }>; tamperFields: string[];
    expectationTargets: Record<string, { outcomes: string[]; nextActions: string[] }>; terminalStatuses: string[];
  }
  interface State {
    clock: { nowMs: number; offsetMs: number }; orders: OrderView[]; refunds: RefundView[]; messages: MessageView[];
    deliveries: DeliveryView[]; faults: FaultView[]; deliveryFaults: FaultView[]; expectations: ExpectationView[]; vocabulary: Vocabulary;
  }
  type Section = 'orders' | 'deliveries' | 'messages' | 'refunds' | 'expectations' | 'delivery-faults' | 'faults' | 'clock';
  type Child = Node | string | null | undefined | false;

  /** Rows drawn per list; the newest first. */
  const SHOWN = 200;
  const api = new URL(doc.documentElement.dataset['api'] ?? 'sandbox/v1/', doc.baseURI);
  const root = new URL(doc.documentElement.dataset['root'] ?? '', doc.baseURI);
  let state: State | undefined;
  const dirty = new Set<Section>();
  let drawing: number | undefined;

  const byId = (id: string): HTMLElement => {
    const element = doc.getElementById(id);
    if (!element) throw new Error(`the dashboard page has no #${id}`);
    return element;
  };

  /** An element with attributes (listeners for `on…` keys) and children; strings become text nodes. */
  function h<K extends keyof HTMLElementTagNameMap>(tag: K, props: Record<string, unknown> = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
    const element = doc.createElement(tag);
    for (const [key, value] of Object.entries(props)) {
      if (value === undefined || value === null || value === false) continue;
      if (key.startsWith('on') && typeof value === 'function') element.addEventListener(key.slice(2), value as EventListener);
      else element.setAttribute(key, value === true ? '' : String(value));
    }
    for (const child of children) if (child !== null && child !== undefined && child !== false) element.append(child);
    return element;
  }

  const time = (value: number | string) => {
    const date = new Date(value);
    return Number.isNaN(date.getTime()) ? String(value) : date.toISOString().replace('T', ' ').replace(/\.\d+Z$/, 'Z');
  };
  const money = (amount: { total: number; currency: string }) => {
    try {
      const format = new Intl.NumberFormat('en', { style: 'currency', currency: amount.currency });
      const digits = format.resolvedOptions().maximumFractionDigits ?? 2;
      return format.format(amount.total / 10 ** digits);
    } catch {
      return `${amount.total} ${amount.currency}`;
    }
  };
  const statusBadge = (status: string) => h('span', { class: `status-${status}` }, status);
  const table = (caption: string, headings: string[], rows: HTMLTableRowElement[], total: number) => {
    if (total === 0) return h('p', { class: 'empty' }, `No ${caption.toLowerCase()} yet.`);
    return h(
      'table',
      {},
      h('caption', { class: 'visually-hidden' }, caption),
      h('thead', {}, h('tr', {}, ...headings.map((heading) => h('th', { scope: 'col' }, heading)))),
      h('tbody', {}, ...rows),
      total > rows.length ? h('tfoot', {}, h('tr', {}, h('td', { colspan: headings.length }, `${total - rows.length} older not shown.`))) : null,
    );
  };
  const lifeList = (life: LifeEntry[]) =>
    h(
      'details',
      {},
      h('summary', {}, `${life.length} ${life.length === 1 ? 'step' : 'steps'}`),
      h('ol', { class: 'life' }, ...life.map((entry) => h('li', {}, h('time', {}, time(entry.at)), ' ', entry.status ? statusBadge(entry.status) : null, entry.status ? ' ' : null, entry.what))),
    );

  // ---- talking to the sandbox ----

  const notice = (message: string) => {
    const element = byId('notice');
    element.textContent = message;
    element.hidden = message === '';
  };

  async function call(method: 'POST' | 'DELETE', path: string, body?: unknown): Promise<boolean> {
    try {
      const response = await win.fetch(new URL(path, api), {
        method,
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(body ?? {}),
      });
      const answer = (await response.json().catch(() => ({}))) as { message?: string };
      if (!response.ok) {
        notice(`${method} ${path}: ${response.status} ${answer.message ?? ''}`);
        return false;
      }
      notice('');
      return true;
    } catch (error) {
      notice(`${method} ${path}: ${error instanceof Error ? error.message : 'failed'}`);
      return false;
    }
  }
  const segment = (value: string) => encodeURIComponent(value);
  const button = (label: string, action: string, run: () => Promise<unknown>, described?: string) =>
    h('button', { type: 'button', 'data-action': action, 'aria-label': described ? `${label} ${described}` : undefined, onclick: () => void run() }, label);

  // ---- the sections ----

  function drawClock(current: State): void {
    byId('clock-now').textContent = time(Date.now() + current.clock.offsetMs);
    const minutes = Math.round(current.clock.offsetMs / 60_000);
    byId('clock-offset').textContent = minutes === 0 ? '(real time)' : `(${minutes} min ahead of real time)`;
  }

  function orderActions(order: OrderView): HTMLElement {
    const actions = h('div', { class: 'controls' });
    if (order.status !== 'PENDING') return actions;
    const complete = (status: string) => () => call('POST', `orders/${segment(order.orderNo)}/complete`, { status });
    actions.append(
      button('Succeed', 'succeed', complete('SUCCESS'), order.orderNo),
      button('Fail', 'fail', complete('FAIL'), order.orderNo),
      button('Close', 'close', complete('CLOSE'), order.orderNo),
    );
    if (order.sn) actions.append(button('Swipe card', 'swipe', () => call('POST', `pos/${segment(order.sn ?? '')}/swipe`, { outcome: 'success' }), order.orderNo));
    if (order.referenceCode) actions.append(button('Pay code', 'pay', () => call('POST', `reference-codes/${segment(order.referenceCode ?? '')}/pay`), order.orderNo));
    if (order.nextAction === 'REDIRECT_3DS') {
      actions.append(h('a', { href: new URL(`sandbox/3ds/${segment(order.orderNo)}`, root).href, target: '_blank', rel: 'noopener' }, '3-D Secure page'));
    }
    return actions;
  }

  function drawOrders(current: State): Node {
    const rows = current.orders.slice(0, SHOWN).map((order) =>
      h(
        'tr',
        { 'data-order-no': order.orderNo, 'data-reference': order.reference },
        h('td', { class: 'mono' }, order.orderNo, h('br'), order.reference),
        h('td', {}, order.payMethod),
        h('td', {}, money(order.amount)),
        h('td', {}, statusBadge(order.status), order.failureCode ? ` ${order.failureCode}` : null),
        h('td', {}, order.nextAction ?? '', order.referenceCode ? ` code ${order.referenceCode}` : null, order.sn ? ` at ${order.sn}` : null,
          order.plan ? h('div', {}, `expects ${order.plan.status}${order.plan.at ? ` at ${time(order.plan.at)}` : ''} (${order.plan.expectationId})`) : null),
        h('td', { class: 'product' }, order.productName),
        h('td', {}, lifeList(order.life)),
        h('td', {}, orderActions(order)),
      ),
    );
    return table('Orders', ['Order', 'Method', 'Amount', 'Status', 'Waiting for', 'Product', 'Life', 'Controls'], rows, current.orders.length);
  }

  function drawDeliveries(current: State): Node {
    const newest = [...current.deliveries].reverse();
    const rows = newest.slice(0, SHOWN).map((delivery) =>
      h(
        'tr',
        { 'data-notify-id': delivery.notifyId, 'data-order-no': delivery.orderNo },
        h('td', { class: 'mono' }, delivery.notifyId, h('br'), delivery.reference),
        h('td', { class: 'mono' }, delivery.url ?? '(no URL)'),
        h('td', {}, statusBadge(delivery.state), delivery.nextAttemptAt !== null ? h('div', {}, `next ${time(delivery.nextAttemptAt)}`) : null),
        h(
          'td',
          {},
          h(
            'ol',
            { class: 'attempts' },
            ...delivery.attempts.map((attempt) =>
              h(
                'li',
                { 'data-attempt': attempt.id },
                `${time(attempt.at)} ${attempt.trigger}${attempt.fault ? ` [${attempt.fault}]` : ''} → `,
                h('strong', {}, attempt.status === null ? (attempt.error ?? 'no answer') : String(attempt.status)),
                attempt.answer ? h('span', { class: 'mono' }, ` ${attempt.answer.slice(0, 160)}`) : null,
                attempt.headers['Authorization'] ? h('div', { class: 'mono', title: attempt.headers['Authorization'] }, `signature ${attempt.headers['Authorization'].slice(0, 24)}…`) : null,
                attempt.note ? h('div', {}, attempt.note) : null,
              ),
            ),
          ),
        ),
        h(
          'td',
          {},
          h(
            'div',
            { class: 'controls' },
            button('Resend', 'resend', () => call('POST', `callbacks/${segment(delivery.notifyId)}/resend`), delivery.notifyId),
            delivery.attempts.some((attempt) => attempt.headers['Authorization']) ? button('Replay', 'replay', () => call('POST', `callbacks/${segment(delivery.notifyId)}/replay`), delivery.notifyId) : null,
          ),
        ),
      ),
    );
    return table('Callback deliveries', ['Callback', 'To', 'State', 'Attempts: answer, signature', 'Controls'], rows, newest.length);
  }

  function drawMessages(current: State): Node {
    const newest = [...current.messages].reverse();
    const rows = newest.slice(0, SHOWN).map((message) =>
      h(
        'tr',
        { 'data-order-no': message.orderNo },
        h('td', {}, time(message.at)),
        h('td', { class: 'mono' }, message.orderNo, h('br'), message.reference),
        h('td', {}, message.channel),
        h('td', {}, message.to),
        h('td', { class: 'message' }, message.subject ? h('strong', {}, message.subject) : null, message.subject ? h('br') : null, message.text),
      ),
    );
    return table('Messages', ['Sent', 'Order', 'Channel', 'To', 'Text'], rows, newest.length);
  }

  function drawRefunds(current: State): Node {
    const rows = current.refunds.slice(0, SHOWN).map((refund) =>
      h(
        'tr',
        { 'data-reference': refund.reference },
        h('td', { class: 'mono' }, refund.reference, h('br'), `of ${refund.originalReference}`),
        h('td', {}, money(refund.amount)),
        h('td', {}, statusBadge(refund.orderStatus), refund.errorCode ? ` ${refund.errorCode}` : null),
        h('td', {}, time(refund.settlesAt)),
        h('td', {}, lifeList(refund.life)),
      ),
    );
    return table('Refunds', ['Refund', 'Amount', 'Status', 'Ends', 'Life'], rows, current.refunds.length);
  }

  function drawExpectations(current: State): Node {
    const rows = current.expectations.map((item) =>
      h(
        'tr',
        { 'data-expectation': item.id },
        h('td', { class: 'mono' }, item.id),
        h('td', {}, `${item.target} ${item.reference}`),
        h(
          'td',
          {},
          [item.nextAction ? `asks for ${item.nextAction}` : '', item.outcome ? `ends ${item.outcome}${item.failureCode ? ` (${item.failureCode})` : ''}` : '', item.afterMinutes !== undefined ? `after ${item.afterMinutes} min` : '']
            .filter(Boolean)
            .join(', '),
        ),
        h('td', {}, statusBadge(item.state), item.orderNo ? ` ${item.orderNo}` : null, item.note ? h('div', {}, item.note) : null),
        h('td', {}, button('Remove', 'remove-expectation', () => call('DELETE', `expectations/${segment(item.id)}`), item.id)),
      ),
    );
    return table('Expectations', ['Id', 'For', 'Says', 'State', 'Controls'], rows, current.expectations.length);
  }

  function drawFaultList(list: FaultView[], path: string, caption: string): Node {
    const rows = list.map((fault) =>
      h(
        'tr',
        { 'data-fault': fault.id },
        h('td', { class: 'mono' }, fault.id),
        h('td', {}, fault.kind),
        h('td', {}, fault.orderNo ? `order ${fault.orderNo}` : fault.reference ? `reference ${fault.reference}` : 'any'),
        h('td', {}, String(fault.remaining)),
        h('td', {}, [fault.delayMs ? `${fault.delayMs} ms` : '', fault.field ?? '', fault.afterMinutes !== undefined ? `after ${fault.afterMinutes} min` : ''].filter(Boolean).join(', ')),
        h('td', {}, button('Remove', 'remove-fault', () => call('DELETE', `${path}/${segment(fault.id)}`), fault.id)),
      ),
    );
    return table(caption, ['Id', 'Kind', 'For', 'Left', 'Details', 'Controls'], rows, list.length);
  }

  // ---- forms, made once so that what is typed survives updates ----

  const field = (label: string, control: HTMLElement) => h('label', {}, label, control);
  const select = (name: string, values: string[], blank = false) =>
    h('select', { name }, ...(blank ? [h('option', { value: '' }, '—')] : []), ...values.map((value) => h('option', { value }, value)));
  /** The form's filled fields, numbers as numbers; empty ones left out. */
  const values = (form: HTMLFormElement, numbers: string[]) => {
    const body: Record<string, unknown> = {};
    for (const [name, value] of new FormData(form).entries()) {
      if (typeof value !== 'string' || value.trim() === '') continue;
      body[name] = numbers.includes(name) ? Number(value) : value.trim();
    }
    return body;
  };
  const form = (name: string, fields: HTMLElement[], submit: string, send: (body: Record<string, unknown>) => Promise<unknown>, numbers: string[]) => {
    const element = h('form', { 'data-form': name }, ...fields, h('button', { type: 'submit' }, submit)) as HTMLFormElement;
    element.addEventListener('submit', (event) => {
      event.preventDefault();
      void send(values(element, numbers));
    });
    return element;
  };

  function buildControls(vocabulary: Vocabulary): void {
    const clock = byId('clock-controls');
    clock.replaceChildren(
      ...[1, 10, 31, 60, 24 * 60].map((minutes) =>
        button(minutes < 60 ? `+${minutes} min` : minutes === 60 ? '+1 h' : '+1 day', `advance-${minutes}`, () => call('POST', 'clock/advance', { minutes })),
      ),
      form('advance', [field('Minutes', h('input', { name: 'minutes', type: 'number', min: '0.01', step: 'any', size: 6 }))], 'Advance', (body) => call('POST', 'clock/advance', body), ['minutes']),
      button('Reset everything', 'reset', () => call('POST', 'reset')),
    );
    const targets = Object.keys(vocabulary.expectationTargets);
    const outcomes = [...new Set(targets.flatMap((target) => vocabulary.expectationTargets[target]?.outcomes ?? []))];
    const actions = [...new Set(targets.flatMap((target) => vocabulary.expectationTargets[target]?.nextActions ?? []))];
    sectionForm('expectations').replaceChildren(
      form(
        'expectation',
        [
          field('For', select('target', targets)),
          field('Reference', h('input', { name: 'reference', required: true, size: 14 })),
          field('Next action', select('nextAction', actions, true)),
          field('Outcome', select('outcome', outcomes, true)),
          field('Failure code', h('input', { name: 'failureCode', size: 14 })),
          field('After minutes', h('input', { name: 'afterMinutes', type: 'number', min: '0', step: 'any', size: 6 })),
        ],
        'Expect',
        (body) => call('POST', 'expectations', body),
        ['afterMinutes'],
      ),
      button('Clear all', 'clear-expectations', () => call('DELETE', 'expectations')),
    );
    const kinds = Object.keys(vocabulary.deliveryFaults);
    const kindSelect = select('kind', kinds);
    for (const option of Array.from(kindSelect.options)) option.title = vocabulary.deliveryFaults[option.value]?.does ?? '';
    sectionForm('delivery-faults').replaceChildren(
      form(
        'delivery-fault',
        [
          field('Kind', kindSelect),
          field('Count', h('input', { name: 'count', type: 'number', min: '1', value: '1', size: 4 })),
          field('Order number', h('input', { name: 'orderNo', size: 14 })),
          field('Reference', h('input', { name: 'reference', size: 14 })),
          field('Field (tamper)', select('field', vocabulary.tamperFields, true)),
          field('After minutes (replay)', h('input', { name: 'afterMinutes', type: 'number', min: '0', step: 'any', size: 6 })),
        ],
        'Queue',
        (body) => call('POST', 'delivery-faults', body),
        ['count', 'afterMinutes'],
      ),
      button('Clear all', 'clear-delivery-faults', () => call('DELETE', 'delivery-faults')),
    );
    sectionForm('faults').replaceChildren(
      form(
        'fault',
        [
          field('Kind', select('kind', vocabulary.faultKinds)),
          field('Count', h('input', { name: 'count', type: 'number', min: '1', value: '1', size: 4 })),
          field('Delay ms', h('input', { name: 'delayMs', type: 'number', min: '1', size: 7 })),
        ],
        'Queue',
        (body) => call('POST', 'faults', body),
        ['count', 'delayMs'],
      ),
      button('Clear all', 'clear-faults', () => call('DELETE', 'faults')),
    );
  }

  /** Each section: a list drawn again on every change, and controls made once. */
  const parts = new Map<string, { list: HTMLElement; form: HTMLElement }>();
  for (const id of ['orders', 'deliveries', 'messages', 'refunds', 'expectations', 'delivery-faults', 'faults']) {
    const list = h('div', { class: 'list' });
    const controls = h('div', { class: 'section-controls' });
    byId(id).replaceChildren(controls, list);
    parts.set(id, { list, form: controls });
  }
  function sectionForm(id: string): HTMLElement {
    return (parts.get(id) as { form: HTMLElement }).form;
  }

  const drawers: Record<Exclude<Section, 'clock'>, (current: State) => Node> = {
    orders: drawOrders,
    deliveries: drawDeliveries,
    messages: drawMessages,
    refunds: drawRefunds,
    expectations: drawExpectations,
    'delivery-faults': (current) => drawFaultList(current.deliveryFaults, 'delivery-faults', 'Callback delivery faults'),
    faults: (current) => drawFaultList(current.faults, 'faults', 'Service faults'),
  };

  function draw(): void {
    drawing = undefined;
    const current = state;
    if (!current) return;
    for (const section of dirty) {
      if (section === 'clock') drawClock(current);
      else parts.get(section)?.list.replaceChildren(drawers[section](current));
    }
    dirty.clear();
  }
  function redraw(...sections: Section[]): void {
    for (const section of sections) dirty.add(section);
    drawing ??= win.setTimeout(draw, 30);
  }

  // ---- the event stream ----

  const upsert = <T>(list: T[], item: T, same: (a: T, b: T) => boolean, newestFirst: boolean) => {
    const index = list.findIndex((existing) => same(existing, item));
    if (index >= 0) list[index] = item;
    else if (newestFirst) list.unshift(item);
    else list.push(item);
  };

  function take(snapshot: State): void {
    const first = state === undefined;
    state = snapshot;
    if (first) buildControls(snapshot.vocabulary);
    redraw('clock', 'orders', 'deliveries', 'messages', 'refunds', 'expectations', 'delivery-faults', 'faults');
  }

  const handlers: Record<string, (data: unknown, current: State) => Section | undefined> = {
    order: (data, current) => (upsert(current.orders, data as OrderView, (a, b) => a.orderNo === b.orderNo, true), 'orders'),
    refund: (data, current) => (upsert(current.refunds, data as RefundView, (a, b) => a.reference === b.reference && a.merchantId === b.merchantId, true), 'refunds'),
    message: (data, current) => (upsert(current.messages, data as MessageView, (a, b) => a.id === b.id, false), 'messages'),
    delivery: (data, current) => (upsert(current.deliveries, data as DeliveryView, (a, b) => a.notifyId === b.notifyId, false), 'deliveries'),
    clock: (data, current) => ((current.clock = data as State['clock']), 'clock'),
    faults: (data, current) => ((current.faults = data as FaultView[]), 'faults'),
    deliveryFaults: (data, current) => ((current.deliveryFaults = data as FaultView[]), 'delivery-faults'),
    expectations: (data, current) => ((current.expectations = data as ExpectationView[]), 'expectations'),
  };

  const connection = byId('connection');
  const source = new EventSource(new URL('events', api));
  source.addEventListener('open', () => {
    connection.dataset['state'] = 'live';
    connection.textContent = 'Live';
  });
  source.addEventListener('error', () => {
    connection.dataset['state'] = 'reconnecting';
    connection.textContent = 'Reconnecting…';
  });
  const parse = (event: Event) => JSON.parse((event as MessageEvent<string>).data) as { data: unknown };
  for (const type of ['snapshot', 'reset']) source.addEventListener(type, (event) => take(parse(event).data as State));
  for (const [type, handle] of Object.entries(handlers)) {
    source.addEventListener(type, (event) => {
      if (!state) return;
      const section = handle(parse(event).data, state);
      if (section) redraw(section);
    });
  }
  win.setInterval(() => state && drawClock(state), 1_000);
  win.addEventListener('pagehide', () => source.close());
}
