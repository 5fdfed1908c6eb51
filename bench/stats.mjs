// Order statistics of the bench's samples.

/** Nearest-rank quantile: the smallest sample with at least a fraction `q` of the samples at or below it. */
export function quantile(values, q) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}

export const median = (values) => quantile(values, 0.5);
