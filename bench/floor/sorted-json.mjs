// The bare forwarders' serialisation (bench/forwarder.mjs on Node, bench/runtime-server.mjs on Deno and Bun), written
// by hand rather than taken from the kit: JSON with keys sorted at every depth, no whitespace, the bytes signed and sent.
export function sorted(value) {
  if (Array.isArray(value)) return `[${value.map(sorted).join(',')}]`;
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  return `{${Object.keys(value)
    .sort()
    .map((key) => `${JSON.stringify(key)}:${sorted(value[key])}`)
    .join(',')}}`;
}
