/**
 * Whether Redis's replicas have what the kit wrote (docs/reliability.md, "Replicas and failover"). Replication is
 * asynchronous: a completion the primary acknowledged but had not passed on is lost with it at a failover, and the
 * promoted replica lets the outcome be claimed again. So where a primary has replicas, a claim and a completion count
 * as written only once one replica acknowledged them (`WAIT 1 <timeout>`, on the connection that wrote them; on a
 * cluster, the key's master). The process lease's beat (process-lease.ts) asks too, on its own write, once a second:
 * that tells whether replicas acknowledge now (while none does, claims are refused at once, callbacks answered 503)
 * and whether the primary changed (`master_replid` of `INFO replication`: a promoted replica takes a new one).
 */
import type { Logger } from '../http/http.js';
import type { RedisConnection } from './connection.js';

/** `INFO replication` as name -> value. */
function infoFields(answer: unknown): Map<string, string> {
  const fields = new Map<string, string>();
  for (const line of String(answer).split(/\r?\n/)) {
    const at = line.indexOf(':');
    if (at > 0) fields.set(line.slice(0, at), line.slice(at + 1).trim());
  }
  return fields;
}

export class Replication {
  #waiting: boolean;
  #acknowledged = true;
  #replid: string | undefined;
  readonly #timeoutMs: number;

  constructor(
    private readonly connection: RedisConnection,
    private readonly mode: 'auto' | boolean,
    timeoutMs: number,
    commandTimeoutMs: number,
    private readonly logger: Logger,
    private readonly where: string,
    /** The primary changed under the kit: what it wrote may not have reached the new one. */
    private readonly switched: (cause: string) => void,
  ) {
    this.#waiting = mode === true;
    this.#timeoutMs = Math.max(1, Math.min(timeoutMs, Math.floor(commandTimeoutMs / 2)));
  }

  /** Whether writes wait for a replica. */
  get waiting(): boolean {
    return this.#waiting;
  }

  /** False while writes wait for a replica and none acknowledged the last one. */
  get acknowledged(): boolean {
    return !this.#waiting || this.#acknowledged;
  }

  /** At start: in `'auto'`, writes wait once any primary has a replica connected. */
  async detect(): Promise<void> {
    if (this.mode !== 'auto') return;
    const answers = await this.connection.link.primaries(['INFO', 'replication']).catch(() => []);
    if (answers.some((answer) => Number(infoFields(answer).get('connected_slaves') ?? 0) > 0)) this.#waiting = true;
  }

  /**
   * Waits for one replica to acknowledge the writes sent before on the connection that `key` routes to (`probe`:
   * the probe's). True when one did, or when writes do not wait.
   */
  async confirm(key: string, options: { probe?: boolean; recovering?: boolean } = {}): Promise<boolean> {
    if (!this.#waiting) return true;
    const args = ['WAIT', '1', String(this.#timeoutMs)];
    const { link } = this.connection;
    const answer = options.probe
      ? await this.connection.call(() => link.probe(key, args), options.recovering)
      : await this.connection.run(key, args, options.recovering);
    const acknowledged = Number(answer) >= 1;
    this.#note(acknowledged);
    return acknowledged;
  }

  /** The beat, after the process lease's write on the probe: replicas acknowledging, and the primary the same. */
  async beat(key: string, recovering = false): Promise<void> {
    if (this.mode === false) return;
    const fields = infoFields(await this.connection.call(() => this.connection.link.probe(key, ['INFO', 'replication']), recovering));
    if (this.mode === 'auto' && Number(fields.get('connected_slaves') ?? 0) > 0) this.#waiting = true;
    const replid = fields.get('role') === 'master' ? fields.get('master_replid') : undefined;
    if (replid) {
      const before = this.#replid;
      this.#replid = replid;
      // A primary with replicas that took a new id is a promoted replica (a restart alone says so by its outage).
      if (before && replid !== before && this.#waiting) {
        this.switched(`master_replid ${replid.slice(0, 8)}…, was ${before.slice(0, 8)}…`);
      }
    }
    await this.confirm(key, { probe: true, recovering });
  }

  #note(acknowledged: boolean): void {
    if (acknowledged === this.#acknowledged) return;
    this.#acknowledged = acknowledged;
    if (acknowledged) {
      this.logger.warn(`svc-checkout: a replica of Redis at ${this.where} acknowledges the kit's writes again: callbacks are handled again.`);
    } else {
      this.logger.error(
        `svc-checkout: no replica of Redis at ${this.where} acknowledged the kit's writes within ${this.#timeoutMs} ms. Until one does, ` +
          'callbacks are answered 503 (the service sends them again) and completions are kept and written again: a failover now must not lose them (docs/reliability.md).',
      );
    }
  }
}
