/**
 * The dashboard's script, run in the browser. Its pieces are self-contained functions — no imports, no outer
 * variables — because page.ts serves their source text as /sandbox/dashboard.js; TypeScript still checks them
 * against the DOM. This one keeps the state and follows the sandbox's event stream; the others make the
 * elements (elements.ts), draw the sections (sections.ts) and build the forms (controls.ts), and reach it as its
 * parts. Everything shown comes from the event stream and goes on the page as text nodes and attribute values,
 * never as markup: orders carry what payers typed.
 */
import type { dashboardControls } from './controls.js';
import type { dashboardElements } from './elements.js';
import type { dashboardSections } from './sections.js';
import type { DeliveryView, ExpectationView, FaultView, LinkView, MessageView, OrderView, RefundView, Section, State } from './shapes.js';

export interface DashboardParts {
  elements: typeof dashboardElements;
  sections: typeof dashboardSections;
  controls: typeof dashboardControls;
}

/** Given its parts, the script as it runs with the page's window and document. */
export function dashboardApp(parts: DashboardParts): (win: Window, doc: Document) => void {
  return (win, doc) => {
    const made = parts.elements(doc);
    const { byId, h } = made;
    const api = new URL(doc.documentElement.dataset['api'] ?? 'sandbox/v1/', doc.baseURI);
    const root = new URL(doc.documentElement.dataset['root'] ?? '', doc.baseURI);
    let state: State | undefined;
    const dirty = new Set<Section>();
    let drawing: number | undefined;

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

    const { drawClock, lists } = parts.sections(made, call, root);
    const { buildControls } = parts.controls(made, call);

    /** Each section: a list drawn again on every change, and controls made once. */
    const places = new Map<string, { list: HTMLElement; form: HTMLElement }>();
    for (const id of ['links', 'orders', 'deliveries', 'messages', 'refunds', 'expectations', 'delivery-faults', 'faults']) {
      const list = h('div', { class: 'list' });
      const controls = h('div', { class: 'section-controls' });
      byId(id).replaceChildren(controls, list);
      places.set(id, { list, form: controls });
    }
    function sectionForm(id: string): HTMLElement {
      return (places.get(id) as { form: HTMLElement }).form;
    }

    function draw(): void {
      drawing = undefined;
      const current = state;
      if (!current) return;
      for (const section of dirty) {
        if (section === 'clock') drawClock(current);
        else places.get(section)?.list.replaceChildren(lists[section](current));
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
      if (first) buildControls(snapshot.vocabulary, sectionForm);
      redraw('clock', 'links', 'orders', 'deliveries', 'messages', 'refunds', 'expectations', 'delivery-faults', 'faults');
    }

    const handlers: Record<string, (data: unknown, current: State) => Section | undefined> = {
      // An order redraws the links too: a link lists its checkout's orders.
      order: (data, current) => (upsert(current.orders, data as OrderView, (a, b) => a.orderNo === b.orderNo, true), redraw('links'), 'orders'),
      links: (data, current) => ((current.links = data as LinkView[]), 'links'),
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
  };
}
