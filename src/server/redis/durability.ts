/**
 * What Redis must keep for the kit to hand each payment over once: the handled callbacks, across a restart
 * (persistence) and when memory runs short (no eviction). Read at start from `CONFIG GET`, or from `INFO` where a
 * managed Redis refuses CONFIG; a Redis whose settings cannot be read at all counts as unsafe (the merchant who
 * checked them another way says so with `acceptDataLoss`).
 */

/** One setting that would let Redis forget what the kit wrote. */
export interface DurabilityRisk {
  setting: 'appendonly' | 'appendfsync' | 'maxmemory-policy' | 'CONFIG GET and INFO';
  value: string;
  /** What would be lost, and what to set. */
  why: string;
}

export interface DurabilityReading {
  /** Where the settings were read: `CONFIG` or `INFO`; undefined when neither answered. */
  source: 'CONFIG' | 'INFO' | undefined;
  risks: DurabilityRisk[];
}

type Run = (args: string[]) => Promise<unknown[]>;

/** `CONFIG GET name` on each primary: a flat [name, value] array (RESP2) or a map (RESP3). */
async function configValues(run: Run, name: string): Promise<string[]> {
  const answers = await run(['CONFIG', 'GET', name]);
  return answers.map((answer) => {
    if (Array.isArray(answer)) return String(answer[1] ?? '');
    if (answer instanceof Map) return String(answer.get(name) ?? '');
    if (answer && typeof answer === 'object') return String((answer as Record<string, unknown>)[name] ?? '');
    return '';
  });
}

/** `INFO section` on each primary, as name -> value per primary. */
async function infoValues(run: Run, section: string): Promise<Map<string, string>[]> {
  const answers = await run(['INFO', section]);
  return answers.map((answer) => {
    const values = new Map<string, string>();
    for (const line of String(answer).split(/\r?\n/)) {
      const colon = line.indexOf(':');
      if (colon > 0 && !line.startsWith('#')) values.set(line.slice(0, colon), line.slice(colon + 1).trim());
    }
    return values;
  });
}

interface Settings {
  appendonly: string;
  appendfsync: string | undefined;
  maxmemory: string;
  policy: string;
}

async function readSettings(run: Run): Promise<{ source: 'CONFIG' | 'INFO'; settings: Settings[] } | undefined> {
  try {
    const [appendonly, appendfsync, maxmemory, policy] = await Promise.all(
      ['appendonly', 'appendfsync', 'maxmemory', 'maxmemory-policy'].map((name) => configValues(run, name)),
    );
    if (appendonly!.every((value) => value !== '')) {
      return {
        source: 'CONFIG',
        settings: appendonly!.map((value, index) => ({
          appendonly: value,
          appendfsync: appendfsync![index],
          maxmemory: maxmemory![index] ?? '0',
          policy: policy![index] ?? '',
        })),
      };
    }
  } catch {
    // refused (a managed Redis renames or disables CONFIG): INFO tells the same, but appendfsync
  }
  try {
    const [persistence, memory] = await Promise.all([infoValues(run, 'persistence'), infoValues(run, 'memory')]);
    if (persistence.some((values) => !values.has('aof_enabled'))) return undefined;
    return {
      source: 'INFO',
      settings: persistence.map((values, index) => ({
        appendonly: values.get('aof_enabled') === '1' ? 'yes' : 'no',
        appendfsync: undefined,
        maxmemory: memory[index]?.get('maxmemory') ?? '0',
        policy: memory[index]?.get('maxmemory_policy') ?? '',
      })),
    };
  } catch {
    return undefined;
  }
}

/** Reads the primaries' persistence and eviction settings and names each one that would lose the kit's data. */
export async function checkDurability(run: Run): Promise<DurabilityReading> {
  const read = await readSettings(run);
  if (!read) {
    return {
      source: undefined,
      risks: [
        {
          setting: 'CONFIG GET and INFO',
          value: 'refused',
          why: 'neither tells whether Redis keeps its data across a restart and when memory runs short',
        },
      ],
    };
  }
  const risks = new Map<string, DurabilityRisk>();
  for (const settings of read.settings) {
    if (settings.appendonly !== 'yes') {
      risks.set('appendonly', {
        setting: 'appendonly',
        value: settings.appendonly,
        why: 'a restart forgets every callback handled since the last snapshot (set appendonly yes)',
      });
    } else if (settings.appendfsync === 'no') {
      risks.set('appendfsync', {
        setting: 'appendfsync',
        value: 'no',
        why: 'the operating system decides when the log reaches the disk, about every 30 s (set appendfsync everysec or always)',
      });
    }
    if (settings.maxmemory !== '0' && settings.policy !== 'noeviction') {
      risks.set('maxmemory-policy', {
        setting: 'maxmemory-policy',
        value: settings.policy,
        why: 'a full Redis evicts keys, handled callbacks among them (set maxmemory-policy noeviction)',
      });
    }
  }
  return { source: read.source, risks: [...risks.values()] };
}
