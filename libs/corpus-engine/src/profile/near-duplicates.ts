/**
 * Near-duplicate passages: two passages are near-duplicates when their sets of index terms overlap by at
 * least `minJaccard` (a templated paragraph on sibling pages, differing in a name or a number). Candidates
 * come from MinHash bands (locality-sensitive hashing), so the check is linear in the passages, not pairwise;
 * each candidate is confirmed by the exact Jaccard of the two term sets.
 */
export const NEAR_DUPLICATE_JACCARD = 0.8;

const HASHES = 24;
const ROWS = 2;
const SEEDS = Array.from({ length: HASHES }, (_, i) => mix(0x9e3779b9 ^ Math.imul(i + 1, 0x85ebca6b)));

/** The MinHash signature of a term set: per seed, the least hash of any term. */
export function minHashes(terms: ReadonlySet<string>): Uint32Array {
  const sig = new Uint32Array(HASHES).fill(0xffffffff);
  for (const t of terms) {
    const h = fnv1a(t);
    for (let i = 0; i < HASHES; i++) {
      const v = mix(h ^ SEEDS[i]!);
      if (v < sig[i]!) sig[i] = v;
    }
  }
  return sig;
}

/**
 * The items to keep, in their order: each near-duplicate of an earlier kept item is dropped (the first, best
 * ranked copy of a text counts once). Items with no terms are kept.
 */
export function collapseNearDuplicates<T>(items: readonly T[], termsOf: (item: T) => readonly string[], minJaccard = NEAR_DUPLICATE_JACCARD): T[] {
  const buckets = new Map<string, number[]>();
  const keptSets: Set<string>[] = [];
  // The item that last checked each kept set: a bucket shared twice is checked once.
  const checkedBy: number[] = [];
  const out: T[] = [];
  for (let i = 0; i < items.length; i++) {
    const item = items[i]!;
    const set = new Set(termsOf(item));
    if (set.size === 0) {
      out.push(item);
      continue;
    }
    const sig = minHashes(set);
    const keys: string[] = [];
    for (let b = 0; b < HASHES; b += ROWS) keys.push(`${b}:${Array.from(sig.subarray(b, b + ROWS)).join(',')}`);
    let duplicate = false;
    for (const key of keys) {
      for (const k of buckets.get(key) ?? []) {
        if (checkedBy[k] === i) continue;
        checkedBy[k] = i;
        if (atLeastJaccard(set, keptSets[k]!, minJaccard)) {
          duplicate = true;
          break;
        }
      }
      if (duplicate) break;
    }
    if (duplicate) continue;
    const at = keptSets.push(set) - 1;
    checkedBy.push(-1);
    for (const key of keys) {
      const list = buckets.get(key);
      if (list) list.push(at);
      else buckets.set(key, [at]);
    }
    out.push(item);
  }
  return out;
}

/**
 * Whether two sets' Jaccard similarity reaches `min`, decided as computing it would (the same division), but a pair
 * whose sizes alone rule it out is not intersected, and the count stops as soon as the answer is known. (A topic's
 * passages share much vocabulary, so most candidates from the bands differ too much in size or terms.) Exact: the
 * similarity only grows with the shared count, and so does its rounded quotient.
 */
function atLeastJaccard(a: ReadonlySet<string>, b: ReadonlySet<string>, min: number): boolean {
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  const sizes = a.size + b.size;
  const reaches = (both: number): boolean => both / (sizes - both) >= min;
  if (!reaches(small.size)) return false;
  let both = 0;
  let left = small.size;
  for (const t of small) {
    if (large.has(t)) both++;
    left--;
    if (left % 16 === 0 && (reaches(both) || !reaches(both + left))) break;
  }
  return reaches(both);
}

function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** A 32-bit finaliser (murmur3's), so related inputs give unrelated hashes. */
function mix(x: number): number {
  x ^= x >>> 16;
  x = Math.imul(x, 0x85ebca6b);
  x ^= x >>> 13;
  x = Math.imul(x, 0xc2b2ae35);
  x ^= x >>> 16;
  return x >>> 0;
}
