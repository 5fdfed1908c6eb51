/**
 * The dashboard's forms: the clock's, and those that queue expectations, callback delivery faults and service
 * faults, built once from the sandbox's vocabulary so that what is typed survives every update. One
 * self-contained function, served as its source text with the script's others (app.ts).
 */
import type { Elements } from './elements.js';
import type { Call, Vocabulary } from './shapes.js';

export function dashboardControls({ byId, h, button }: Elements, call: Call) {
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

  /** Puts the forms on the page: the clock's in the header, each queue's above its list (`sectionForm`). */
  function buildControls(vocabulary: Vocabulary, sectionForm: (id: string) => HTMLElement): void {
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


  return { buildControls };
}
