/**
 * Counts the element's calls to one merchant endpoint path as they go through the page's real fetch: how
 * many, and the most that were in flight at once.
 */
export interface RequestCount {
  count: number;
  inFlight: number;
  maxInFlight: number;
  /** Bodies sent, parsed. */
  bodies: unknown[];
  restore(): void;
}

/** The path a `fetch` call goes to, whatever form its input takes. */
export function requestPath(input: RequestInfo | URL): string {
  const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
  return new URL(url, location.href).pathname;
}

export function countRequests(pathSuffix: string): RequestCount {
  const original = window.fetch;
  const counter: RequestCount = {
    count: 0,
    inFlight: 0,
    maxInFlight: 0,
    bodies: [],
    restore: () => {
      window.fetch = original;
    },
  };
  window.fetch = async (input, init) => {
    if (!requestPath(input).endsWith(pathSuffix)) return original(input, init);
    counter.count += 1;
    counter.inFlight += 1;
    counter.maxInFlight = Math.max(counter.maxInFlight, counter.inFlight);
    if (typeof init?.body === 'string') counter.bodies.push(JSON.parse(init.body));
    try {
      return await original(input, init);
    } finally {
      counter.inFlight -= 1;
    }
  };
  return counter;
}
