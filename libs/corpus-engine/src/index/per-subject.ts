import type { CorpusIndex } from './corpus-index';

/** What is read once per corpus index and subject, for the `kept` subjects asked last of each index. */
export function perSubject<T>(kept: number): (index: CorpusIndex, terms: readonly string[], compute: () => T) => T {
  const cache = new WeakMap<CorpusIndex, Map<string, T>>();
  return (index, terms, compute) => {
    let byIndex = cache.get(index);
    if (!byIndex) cache.set(index, (byIndex = new Map()));
    const key = terms.join(' ');
    const known = byIndex.get(key);
    if (known !== undefined) return known;
    const value = compute();
    if (byIndex.size >= kept) byIndex.delete(byIndex.keys().next().value!);
    byIndex.set(key, value);
    return value;
  };
}
