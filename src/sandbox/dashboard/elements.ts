/**
 * The dashboard's way of making elements: from tags, attributes and children, every string a text node and never
 * markup (orders carry what payers typed), and the few pieces every section uses. One self-contained function,
 * served as its source text with the script's others (app.ts).
 */
import type { Child, LifeEntry } from './shapes.js';

export function dashboardElements(doc: Document) {
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

  const button = (label: string, action: string, run: () => Promise<unknown>, described?: string) =>
    h('button', { type: 'button', 'data-action': action, 'aria-label': described ? `${label} ${described}` : undefined, onclick: () => void run() }, label);

  return { byId, h, time, money, statusBadge, table, lifeList, button };
}

export type Elements = ReturnType<typeof dashboardElements>;
