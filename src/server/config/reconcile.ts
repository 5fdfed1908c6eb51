/** The `reconcile` option: how the kit asks the service about the orders it has not seen settled (docs/reliability.md). */
import { numberOption } from './checks.js';
import { optionError } from './errors.js';

export interface ReconcileOptions {
  /** An order the kit has heard nothing settled of for this long is asked about, and again each time it passes. Default 300 s. */
  quietSeconds?: number;
  /** How often each process looks for due orders; `false`: only when `handler.reconcile()` is called (a scheduled job). Default 30 s. */
  sweepSeconds?: number | false;
  /** Status queries per second at most, counted across processes through the throttle store. Default 10. */
  queriesPerSecond?: number;
  /** An order the service still calls pending (or cannot find) this long after its deadline is given up on, with a warning. Default 24 h. */
  giveUpHours?: number;
}

export interface ResolvedReconcileOptions {
  quietMs: number;
  sweepMs: number | undefined;
  queriesPerSecond: number;
  giveUpMs: number;
}

/** The sweeps' pace; `undefined` when `reconcile: false` or no `onCallback` hears what they find. */
export function resolveReconcileOptions(given: ReconcileOptions | false | undefined, heard: boolean): ResolvedReconcileOptions | undefined {
  if (given === false || !heard) return undefined;
  if (given !== undefined && (typeof given !== 'object' || given === null)) throw optionError('reconcile', 'false or an object of the sweeps\' pace', given);
  const above = (name: keyof ReconcileOptions, unit: string, fallback: number) =>
    numberOption(`reconcile.${name}`, given?.[name], { fallback, min: 0, above: true, unit });
  return Object.freeze({
    quietMs: above('quietSeconds', 'seconds', 300) * 1000,
    sweepMs: given?.sweepSeconds === false ? undefined : above('sweepSeconds', 'seconds', 30) * 1000,
    queriesPerSecond: Math.ceil(above('queriesPerSecond', 'queries', 10)),
    giveUpMs: above('giveUpHours', 'hours', 24) * 3_600_000,
  });
}
