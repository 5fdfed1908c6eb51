/**
 * The dashboard's sections: each list drawn anew from the state on every change, newest first, with the controls
 * of its rows (settle an order, resend a callback, remove a fault). One self-contained function, served as its
 * source text with the script's others (app.ts).
 */
import type { Elements } from './elements.js';
import type { Call, FaultView, LinkView, OrderView, Section, State } from './shapes.js';

export function dashboardSections({ byId, h, time, money, statusBadge, table, lifeList, button }: Elements, call: Call, root: URL) {
  /** Rows drawn per list; the newest first. */
  const SHOWN = 200;
  const segment = (value: string) => encodeURIComponent(value);

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

  /** A link's checkout: its cart's own order and its attempts' (`<cart>--2`, …), as the orders list holds them. */
  const ordersOf = (link: LinkView, current: State) =>
    current.orders.filter((order) => order.reference === link.reference || (order.reference.startsWith(`${link.reference}--`) && /^\d+$/.test(order.reference.slice(link.reference.length + 2))));

  function drawLinks(current: State): Node {
    const rows = current.links.slice(0, SHOWN).map((link) =>
      h(
        'tr',
        { 'data-link': link.reference },
        h('td', {}, link.productName, h('div', { class: 'mono' }, link.reference)),
        h('td', {}, money(link.amount)),
        h('td', {}, time(link.expiresAt * 1000), Date.now() + current.clock.offsetMs >= link.expiresAt * 1000 ? ' (expired)' : null),
        h('td', {}, ...ordersOf(link, current).map((order) => h('div', {}, statusBadge(order.status), ' ', h('span', { class: 'mono' }, order.orderNo)))),
        h('td', {}, h('a', { href: link.url, target: '_blank', rel: 'noopener noreferrer' }, 'Pay page')),
      ),
    );
    return table('Payment links', ['Product', 'Amount', 'Good until', 'Its checkout’s orders', 'Link'], rows, current.links.length);
  }

  /** Each section's list, by its element's id; the clock is drawn in place. */
  const lists: Record<Exclude<Section, 'clock'>, (current: State) => Node> = {
    links: drawLinks,
    orders: drawOrders,
    deliveries: drawDeliveries,
    messages: drawMessages,
    refunds: drawRefunds,
    expectations: drawExpectations,
    'delivery-faults': (current) => drawFaultList(current.deliveryFaults, 'delivery-faults', 'Callback delivery faults'),
    faults: (current) => drawFaultList(current.faults, 'faults', 'Service faults'),
  };

  return { drawClock, lists };
}
