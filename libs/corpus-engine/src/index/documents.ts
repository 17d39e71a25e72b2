import { documentOfTitle } from '@orrery/passages';
import type { CorpusIndex } from './corpus-index';

/**
 * The document structure of a corpus, when it has one: passages that share a title are one source
 * document (the paragraphs of one speech, one article); so are the sections of one file, titled
 * "README.md > Installation", "README.md > Usage". Untitled passages, or passages each titled on
 * their own, have no structure, and every mechanism built on it is then a no-op.
 *
 * - `docOf`: the document key of a passage (its title, less any section heading), or null without structure.
 * - `yearOf`: the year a document's title carries ("1946, Harry S. Truman"), when most titles carry one.
 * - `authorOf`: what a dated title names besides its year ("Harry S. Truman"), when those names recur
 *   across documents (an author of several), so a question can be asked of one author's documents.
 * - `documentKeys` / `passagesOf`: the documents, and each one's passages in corpus order.
 * - `boilerplate`: terms concentrated in documents' first and last passages: address formulas and
 *   sign-offs ("Mr. Speaker", "honored guests", "God bless"), which are not what a document is about.
 */
export interface DocumentStructure {
  /** True when passages group into documents by title. */
  readonly structured: boolean;
  /** True when (most) document titles carry a year. */
  readonly dated: boolean;
  readonly documents: number;
  /** True when dated titles also name a recurring author. */
  readonly authored: boolean;
  docOf(id: string): string | null;
  /** The year of a passage (by id) or of a document (by key). */
  yearOf(id: string): number | null;
  /** The author of a passage (by id) or of a document (by key). */
  authorOf(id: string): string | null;
  /** Document keys in corpus order. */
  documentKeys(): readonly string[];
  /** A document's passages, in corpus order (empty for an unknown key). */
  passagesOf(doc: string): readonly string[];
  /** The distinct authors, in order of their first document. */
  readonly authors: readonly string[];
  readonly boilerplate: ReadonlySet<string>;
}

const YEAR = /\b(1[0-9]{3}|20[0-9]{2})\b/;

/** What makes a structure: documents, years, boilerplate. */
const STRUCTURE = {
  /** Structure needs documents to hold this many passages on average... */
  minPassagesPerDocument: 3,
  /** ...and at least this many documents. */
  minDocuments: 5,
  /** Titles are dated when this share of the titled passages carry a year. */
  datedShare: 0.8,
  /** A boilerplate term occurs in at least this many documents' edge passages... */
  boilerplateMinDocs: 5,
  /** ...with at least this share of its passages at a document's edge... */
  boilerplateEdgeShare: 0.5,
  /** ...and at least this lift over the edge passages' share of the corpus. */
  boilerplateLift: 3,
};

const cache = new WeakMap<CorpusIndex, DocumentStructure>();

/** The corpus's document structure (memoized per read-only index). */
export function documentStructure(index: CorpusIndex): DocumentStructure {
  let s = cache.get(index);
  if (!s) cache.set(index, (s = buildStructure(index)));
  return s;
}

function buildStructure(index: CorpusIndex): DocumentStructure {
  const o = STRUCTURE;
  const byDoc = new Map<string, string[]>();
  for (const p of index.passages) {
    const title = p.title?.trim();
    if (!title || title === p.id) continue;
    const doc = documentOfTitle(title);
    let list = byDoc.get(doc);
    if (!list) byDoc.set(doc, (list = []));
    list.push(p.id);
  }
  const titled = [...byDoc.values()].reduce((s, l) => s + l.length, 0);
  const structured = byDoc.size >= o.minDocuments && titled >= o.minPassagesPerDocument * byDoc.size && titled >= 0.5 * index.size;
  if (!structured)
    return {
      structured: false,
      dated: false,
      authored: false,
      documents: 0,
      docOf: () => null,
      yearOf: () => null,
      authorOf: () => null,
      documentKeys: () => [],
      passagesOf: () => [],
      authors: [],
      boilerplate: new Set(),
    };

  const docOfId = new Map<string, string>();
  for (const [title, ids] of byDoc) for (const id of ids) docOfId.set(id, title);
  const yearOfDoc = new Map<string, number>();
  let datedPassages = 0;
  for (const [title, ids] of byDoc) {
    const m = YEAR.exec(title);
    if (m) {
      yearOfDoc.set(title, Number(m[1]));
      datedPassages += ids.length;
    }
  }
  const dated = datedPassages >= o.datedShare * titled;
  const authorOfDoc = new Map<string, string>();
  if (dated) for (const title of byDoc.keys()) {
    const { author } = titleParts(title);
    if (author) authorOfDoc.set(title, author);
  }
  const authors = [...new Set(authorOfDoc.values())];
  const authored = dated && authorOfDoc.size >= o.datedShare * byDoc.size && authors.length < authorOfDoc.size;
  const keys = [...byDoc.keys()];

  // Boilerplate: terms whose passages sit at a document's first or last passage far more than chance.
  const edge = new Set<string>();
  for (const ids of byDoc.values()) {
    edge.add(ids[0]!);
    edge.add(ids[ids.length - 1]!);
  }
  const edgeShare = edge.size / titled;
  const atEdge = new Map<string, number>();
  const total = new Map<string, number>();
  for (const ids of byDoc.values())
    for (const id of ids) {
      const isEdge = edge.has(id);
      for (const t of new Set(index.termsOf(id))) {
        total.set(t, (total.get(t) ?? 0) + 1);
        if (isEdge) atEdge.set(t, (atEdge.get(t) ?? 0) + 1);
      }
    }
  const boilerplate = new Set<string>();
  for (const [t, e] of atEdge) {
    const n = total.get(t)!;
    if (e < o.boilerplateMinDocs || /^[0-9]/.test(t)) continue;
    const share = e / n;
    if (share >= o.boilerplateEdgeShare && share >= o.boilerplateLift * edgeShare) boilerplate.add(t);
  }
  return {
    structured: true,
    dated,
    authored,
    documents: byDoc.size,
    docOf: (id) => docOfId.get(id) ?? null,
    yearOf: (id) => {
      if (!dated) return null;
      const d = docOfId.get(id) ?? (byDoc.has(id) ? id : undefined);
      return d === undefined ? null : (yearOfDoc.get(d) ?? null);
    },
    authorOf: (id) => {
      if (!authored) return null;
      const d = docOfId.get(id) ?? (byDoc.has(id) ? id : undefined);
      return d === undefined ? null : (authorOfDoc.get(d) ?? null);
    },
    documentKeys: () => keys,
    passagesOf: (doc) => byDoc.get(doc) ?? [],
    authors: authored ? authors : [],
    boilerplate,
  };
}

/**
 * Whether a set of passages is spread over many documents (no single document holds most of it).
 * Diversity over documents only makes sense then: an on-topic set that is one article stays one article.
 */
export function spreadOverDocuments(structure: DocumentStructure, ids: readonly string[]): boolean {
  const minDocuments = 6;
  const maxDominantShare = 0.35;
  if (!structure.structured || ids.length === 0) return false;
  const counts = new Map<string, number>();
  for (const id of ids) {
    const d = structure.docOf(id);
    if (d !== null) counts.set(d, (counts.get(d) ?? 0) + 1);
  }
  const top = Math.max(0, ...counts.values());
  return counts.size >= minDocuments && top <= maxDominantShare * ids.length;
}

/** The year a title carries, if any. */
export function yearOfTitle(title: string | undefined): number | null {
  return titleParts(title).year;
}

/** A dated title's year and what else it names: "1946, Harry S. Truman" -> 1946 and "Harry S. Truman". */
export function titleParts(title: string | undefined): { year: number | null; author: string | null } {
  const m = title ? YEAR.exec(title) : null;
  if (!title || !m) return { year: null, author: null };
  const rest = (title.slice(0, m.index) + ' ' + title.slice(m.index + m[0].length)).replace(/^[\s,;:–—-]+|[\s,;:–—-]+$/g, '').replace(/\s+/g, ' ');
  return { year: Number(m[1]), author: rest || null };
}

/** Hits in their order, one per document before a second of any: many speeches rather than one speech's paragraphs. */
export function onePerDocumentFirst<H extends { id: string }>(index: CorpusIndex, hits: readonly H[]): H[] {
  const structure = documentStructure(index);
  const docOf = (id: string): string => structure.docOf(id) ?? id;
  const seen = new Set<string>();
  const firsts: H[] = [];
  const rest: H[] = [];
  for (const h of hits) {
    const d = docOf(h.id);
    if (seen.has(d)) rest.push(h);
    else {
      seen.add(d);
      firsts.push(h);
    }
  }
  return [...firsts, ...rest];
}
