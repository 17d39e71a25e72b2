/** Jaccard similarity of two sets: |A ∩ B| / |A ∪ B| (0 for two empty sets). */
export function jaccard<T>(a: ReadonlySet<T>, b: ReadonlySet<T>): number {
  if (a.size === 0 && b.size === 0) return 0;
  let inter = 0;
  for (const x of a) if (b.has(x)) inter++;
  return inter / (a.size + b.size - inter);
}

/** The largest pairwise Jaccard overlap among sets, with the pair that reaches it. */
export function maxPairwiseOverlap<T>(sets: readonly ReadonlySet<T>[]): { value: number; pair: [number, number] | null } {
  let best = { value: 0, pair: null as [number, number] | null };
  for (let i = 0; i < sets.length; i++)
    for (let j = i + 1; j < sets.length; j++) {
      const v = jaccard(sets[i]!, sets[j]!);
      if (v > best.value) best = { value: v, pair: [i, j] };
    }
  return best;
}

/** Share of the total weight whose keys fall inside `covered`. */
export function coveredShare(weights: ReadonlyMap<string, number>, covered: ReadonlySet<string>): number {
  let total = 0;
  let inside = 0;
  for (const [k, w] of weights) {
    total += w;
    if (covered.has(k)) inside += w;
  }
  return total > 0 ? inside / total : 0;
}
