/**
 * A chunk the element imports on demand (the session, a form, a catalog): fetched once however often it is asked
 * for, every element of the page sharing it; a fetch that failed is tried again at the next ask.
 */
export function lazy<T>(load: () => Promise<T>): () => Promise<T> {
  let pending: Promise<T> | undefined;
  return () =>
    (pending ??= load().catch((error: unknown) => {
      pending = undefined;
      throw error;
    }));
}
