import type { CorpusIndex } from './corpus-index';
import { documentStructure } from './documents';
import { eraOf } from './eras';

const sizesCache = new WeakMap<CorpusIndex, Map<number, number>>();

/** Passages per era of a dated corpus (none for an undated one). */
export function eraSizes(index: CorpusIndex): ReadonlyMap<number, number> {
  let sizes = sizesCache.get(index);
  if (!sizes) {
    sizes = new Map();
    for (const id of index.ids()) {
      const era = eraOfPassage(index, id);
      if (era !== null) sizes.set(era, (sizes.get(era) ?? 0) + 1);
    }
    sizesCache.set(index, sizes);
  }
  return sizes;
}

/** The era of a passage of a dated corpus; null when it has no year, or the corpus no dates. */
export function eraOfPassage(index: CorpusIndex, id: string): number | null {
  const structure = documentStructure(index);
  const year = structure.dated ? structure.yearOf(id) : null;
  return year === null ? null : eraOf(year);
}

/**
 * The share of `ids` that something would hold if it were no likelier there than elsewhere: in a dated corpus each
 * passage is set against its own era's passages (a subject talked about lately keeps company with every late word),
 * an undated one against the corpus. The caller says how many passages of an era hold it, and its share of the corpus.
 */
export function eraExpectation(index: CorpusIndex, ids: readonly string[]): (inEra: (era: number) => number, corpusShare: number) => number {
  const sizes = eraSizes(index);
  const weights = new Map<number, number>();
  let undated = 0;
  for (const id of ids) {
    const era = eraOfPassage(index, id);
    if (era === null) undated++;
    else weights.set(era, (weights.get(era) ?? 0) + 1);
  }
  return (inEra, corpusShare) => {
    if (ids.length === 0) return corpusShare;
    let sum = undated * corpusShare;
    for (const [era, n] of weights) sum += (n * inEra(era)) / sizes.get(era)!;
    return sum / ids.length;
  };
}
