/**
 * State that survives a restart (`--data <file>`): everything the sandbox keeps — orders and their life,
 * refunds, messages, callback deliveries and their log, queued faults and expectations, the clock's lead —
 * written as one JSON document shortly after every change and when the sandbox stops. Each write goes to a
 * temporary file beside the data file, is flushed to disk and then renamed over it, so that the file is
 * always either the old state or the new one, never half of each. A damaged file stops the start with an
 * error that says where, rather than a sandbox that silently starts empty.
 */
import { open, readFile, rename, rm } from 'node:fs/promises';
import { PAYMENT_STATUSES } from '../../core/index.js';
import type { DispatcherData } from '../callbacks/dispatcher.js';
import type { DeliveryFaultData } from '../faults/delivery-faults.js';
import type { ExpectationData } from '../scenarios/expectations.js';
import type { FaultData } from '../faults/service-faults.js';
import { JsonSyntaxError, parseLocatedJson, type LocatedJson } from '../scenarios/json-locations.js';
import type { OutboxData } from './notifications.js';
import type { BookData } from './orders.js';

export const DATA_FORMAT = 'svc-sandbox-data';
export const DATA_VERSION = 1;
/** How long after a change the file is written: changes in a burst are written once. */
export const WRITE_DELAY_MS = 100;

export interface SavedState {
  clockOffsetMs: number;
  book: BookData;
  outbox: OutboxData;
  dispatcher: DispatcherData;
  faults: FaultData;
  deliveryFaults: DeliveryFaultData;
  expectations: ExpectationData;
}

export class DataFileError extends Error {
  override readonly name = 'DataFileError';
}

type Path = (string | number)[];

const keyName = (path: Path) => path.map((part, index) => (typeof part === 'number' ? `[${part}]` : index === 0 ? part : `.${part}`)).join('') || 'the document';

/** Checks the shape of what a data file holds, enough that the sandbox can run on it; names the first problem. */
function checkSaved(value: unknown, located: LocatedJson, file: string): SavedState {
  const damaged = (path: Path, problem: string): never => {
    const { line, column } = located.locate(path);
    throw new DataFileError(
      `the data file ${file} is damaged at line ${line}, column ${column}: ${keyName(path)} ${problem}. ` +
        'Move it away (or delete it) to start with an empty sandbox.',
    );
  };
  const object = (item: unknown, path: Path): Record<string, unknown> =>
    typeof item === 'object' && item !== null && !Array.isArray(item) ? (item as Record<string, unknown>) : damaged(path, 'must be an object');
  const list = (item: unknown, path: Path): unknown[] => (Array.isArray(item) ? item : damaged(path, 'must be a list'));
  const count = (item: unknown, path: Path): number =>
    typeof item === 'number' && Number.isSafeInteger(item) && item >= 0 ? item : damaged(path, 'must be a whole number');
  const time = (item: unknown, path: Path): number => (typeof item === 'number' && Number.isFinite(item) ? item : damaged(path, 'must be a time in milliseconds'));
  const string = (item: unknown, path: Path): string => (typeof item === 'string' ? item : damaged(path, 'must be a string'));

  const root = object(value, []);
  if (root['format'] !== DATA_FORMAT) damaged(['format'], `must be "${DATA_FORMAT}": this is not a sandbox data file`);
  if (root['version'] !== DATA_VERSION) damaged(['version'], `is ${JSON.stringify(root['version'])}; this sandbox reads version ${DATA_VERSION}`);
  const offset = root['clockOffsetMs'];
  if (typeof offset !== 'number' || !Number.isFinite(offset) || offset < 0) damaged(['clockOffsetMs'], 'must be a number of milliseconds, 0 or more');

  const book = object(root['book'], ['book']);
  list(book['orders'], ['book', 'orders']).forEach((item, index) => {
    const path = ['book', 'orders', index];
    const order = object(item, path);
    for (const key of ['orderNo', 'reference', 'merchantId', 'payMethod', 'country', 'productName']) string(order[key], [...path, key]);
    if (!PAYMENT_STATUSES.includes(order['status'] as never)) damaged([...path, 'status'], `must be one of ${PAYMENT_STATUSES.join(', ')}`);
    const amount = object(order['amount'], [...path, 'amount']);
    count(amount['total'], [...path, 'amount', 'total']);
    string(amount['currency'], [...path, 'amount', 'currency']);
    object(order['vat'], [...path, 'vat']);
    for (const key of ['createdAt', 'expiresAt', 'updatedAt']) time(order[key], [...path, key]);
    for (const key of ['codeAttempts', 'otpResends', 'refundedTotal']) count(order[key], [...path, key]);
    list(order['life'], [...path, 'life']);
  });
  list(book['refunds'], ['book', 'refunds']).forEach((item, index) => {
    const path = ['book', 'refunds', index];
    const refund = object(item, path);
    for (const key of ['reference', 'originalReference', 'orderNo', 'originalOrderNo', 'merchantId', 'orderStatus']) string(refund[key], [...path, key]);
    for (const key of ['createdAt', 'pendingAt', 'settlesAt']) time(refund[key], [...path, key]);
    object(refund['outcome'], [...path, 'outcome']);
    list(refund['life'], [...path, 'life']);
  });
  count(book['sequence'], ['book', 'sequence']);
  count(book['codeState'], ['book', 'codeState']);

  const outbox = object(root['outbox'], ['outbox']);
  list(outbox['messages'], ['outbox', 'messages']);
  count(outbox['counter'], ['outbox', 'counter']);

  const dispatcher = object(root['dispatcher'], ['dispatcher']);
  list(dispatcher['deliveries'], ['dispatcher', 'deliveries']).forEach((item, index) => {
    const path = ['dispatcher', 'deliveries', index];
    const delivery = object(item, path);
    for (const key of ['notifyId', 'orderNo', 'merchantId', 'body', 'state']) string(delivery[key], [...path, key]);
    time(delivery['nextAttemptAt'], [...path, 'nextAttemptAt']);
  });
  list(dispatcher['attempts'], ['dispatcher', 'attempts']);
  list(dispatcher['replays'], ['dispatcher', 'replays']);
  count(dispatcher['counter'], ['dispatcher', 'counter']);
  count(dispatcher['attemptCounter'], ['dispatcher', 'attemptCounter']);

  for (const [section, key] of [
    ['faults', 'faults'],
    ['deliveryFaults', 'faults'],
    ['expectations', 'expectations'],
  ] as const) {
    const part = object(root[section], [section]);
    list(part[key], [section, key]);
    count(part['counter'], [section, 'counter']);
  }
  return root as unknown as SavedState;
}

/** Reads a data file: its state, `undefined` when there is no file yet, or a DataFileError that says what is wrong. */
export async function readDataFile(file: string): Promise<SavedState | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as { code?: string }).code === 'ENOENT') return undefined;
    throw new DataFileError(`the data file ${file} cannot be read: ${(error as Error).message}`);
  }
  if (text.trim() === '') throw new DataFileError(`the data file ${file} is empty: it is not one the sandbox wrote. Move it away (or delete it) to start with an empty sandbox.`);
  let located: LocatedJson;
  try {
    located = parseLocatedJson(text);
  } catch (error) {
    if (!(error instanceof JsonSyntaxError)) throw error;
    throw new DataFileError(
      `the data file ${file} is damaged: it is not JSON (${error.message}). Move it away (or delete it) to start with an empty sandbox.`,
    );
  }
  return checkSaved(located.value, located, file);
}

/** Writes `text` to `file` atomically: a temporary file beside it, flushed, then renamed over it. */
export async function writeFileAtomically(file: string, text: string): Promise<void> {
  const temporary = `${file}.${process.pid}.${Date.now().toString(36)}.tmp`;
  const handle = await open(temporary, 'w', 0o600);
  try {
    await handle.writeFile(text, 'utf8');
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await rename(temporary, file);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}

/**
 * Keeps a data file up to date: `changed()` after every change writes the state once the burst is over; one
 * write at a time; `flush()` writes what is pending now (at stop).
 */
export class DataFileWriter {
  #timer: NodeJS.Timeout | undefined;
  #writing: Promise<void> | undefined;
  #dirty = false;
  #lastError: Error | undefined;

  constructor(
    readonly file: string,
    private readonly state: () => SavedState,
    private readonly onError: (error: Error) => void = () => undefined,
  ) {}

  /** Writes the state now, and throws when the file cannot be written: called at start, so that a bad path is found at once. */
  async start(): Promise<void> {
    try {
      await writeFileAtomically(this.file, this.#document());
    } catch (error) {
      throw new DataFileError(`the data file ${this.file} cannot be written: ${(error as Error).message}`);
    }
  }

  #document(): string {
    return JSON.stringify({ format: DATA_FORMAT, version: DATA_VERSION, savedAt: new Date().toISOString(), ...this.state() });
  }

  changed(): void {
    this.#dirty = true;
    if (this.#timer || this.#writing) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      void this.#write();
    }, WRITE_DELAY_MS);
    this.#timer.unref();
  }

  /** The last write's failure, if the last write failed. */
  get lastError(): Error | undefined {
    return this.#lastError;
  }

  async flush(): Promise<void> {
    if (this.#timer) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
    }
    while (this.#writing) await this.#writing;
    if (this.#dirty) await this.#write();
  }

  async #write(): Promise<void> {
    if (this.#writing) return this.#writing;
    this.#dirty = false;
    this.#writing = writeFileAtomically(this.file, this.#document())
      .then(() => {
        this.#lastError = undefined;
      })
      .catch((error: Error) => {
        this.#lastError = error;
        this.onError(error);
      })
      .finally(() => {
        this.#writing = undefined;
        if (this.#dirty) this.changed();
      });
    return this.#writing;
  }
}
