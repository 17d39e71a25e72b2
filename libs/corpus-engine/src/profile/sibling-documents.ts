import type { CorpusIndex } from '../index/corpus-index';
import { linkedGroups } from './local-community';
import { normalizeWord, stemWord } from '@orrery/language';

/** A term is a name when at least this share of its occurrences (not opening a sentence) are capitalized. */
const NAME_SHARE = 0.8;
/** A sibling's name is as prominent as a document title: in at least this many passages... */
const MIN_SIBLING_DF = 5;
/** ...and at least this share of the topic anchor's passages. */
const MIN_SIBLING_ANCHOR_SHARE = 0.5;
/** At most this share of a sibling name's passages may also be the topic's own (seeds, anchor passages). */
const MAX_SHARED = 0.1;
/** Most of a sibling name's passages form one group in the similarity graph... */
const MIN_GROUP_SHARE = 0.6;
/** ...they lean on each other (share of their neighbour similarity among themselves)... */
const MIN_COHESION = 0.5;
/** ...and hardly on the topic's own passages. */
const MAX_OWN_LINK = 0.1;

export interface SiblingPruneInput {
  index: CorpusIndex;
  /** The topic's index terms. */
  terms: readonly string[];
  seeds: readonly string[];
  /** The topic's community: id -> relevance. Mutated: sibling passages are removed. */
  members: Map<string, number>;
  /** Neighbours per passage in the similarity graph. */
  neighbors: number;
}

/**
 * Sibling pruning: a community can swallow a similar document about another entity (a second cyclone, a
 * film from the same studio). That document has a name of its own that it repeats ("Batsirai" inside
 * "Typhoon Hinnamnor"'s community): a capitalized term in at least two members, about as frequent as the
 * topic's own anchor, almost never in the topic's seed or anchor passages, whose passages form one
 * cohesive group that links to the topic's own passages hardly at all. Common names spread over many
 * documents ("London", "Smith") fail the group and cohesion tests; a topic passage that merely mentions a
 * sibling is outside the sibling's group and is not marked.
 *
 * Members are then labelled by their similarity-weighted neighbours, anchor and seed passages for the
 * topic, the sibling groups against it, every other member leaning to the topic: a member joins the
 * sibling only when its neighbourhood is mostly the sibling's. A "sibling" that would take most of the
 * community is the topic's own material, and nothing is pruned.
 */
export function pruneSiblingDocuments(input: SiblingPruneInput): { names: string[]; pruned: number } {
  const none = { names: [], pruned: 0 };
  const { index, terms, members, neighbors: k } = input;
  if (terms.length === 0) return none;
  const minDf = Math.min(...terms.map((t) => index.df(t)));
  const rare = terms.filter((t) => index.df(t) <= Math.max(5, 2 * minDf));
  // The topic's own name, not its type noun: "Hilary" anchors "Hurricane Hilary", "hurricane" names its siblings too.
  const named = rare.filter((t) => nameShare(index, t) >= NAME_SHARE);
  const anchors = new Set(named.length ? named : rare);
  const anchorDf = Math.min(...[...anchors].map((t) => index.df(t)));
  const postings = (t: string): string[] => index.searchTerms([t], { limit: index.size }).map((r) => r.id);
  const own = new Set(input.seeds);
  for (const t of anchors) for (const id of postings(t)) own.add(id);
  const inMembers = new Map<string, number>();
  for (const id of members.keys()) for (const t of new Set(index.termsOf(id))) inMembers.set(t, (inMembers.get(t) ?? 0) + 1);

  const sibling = new Set<string>();
  const names: string[] = [];
  for (const [name, n] of inMembers) {
    const df = index.df(name);
    if (n < 2 || terms.includes(name) || /^[0-9]/.test(name) || df < Math.max(MIN_SIBLING_DF, MIN_SIBLING_ANCHOR_SHARE * anchorDf) || df > 0.02 * index.size) continue;
    const docs = new Set(postings(name));
    if ([...docs].filter((d) => own.has(d)).length > MAX_SHARED * docs.size || nameShare(index, name) < NAME_SHARE) continue;
    const group = siblingGroup(index, docs, own, k);
    if (group && group.filter((d) => members.has(d)).length >= 2) {
      names.push(name);
      for (const d of group) sibling.add(d);
    }
  }
  if (sibling.size === 0) return none;

  const label = new Map<string, number>();
  const lab = (id: string): number => label.get(id) ?? (own.has(id) ? 1 : sibling.has(id) ? -1 : 0);
  for (let it = 0; it < 2; it++) {
    const next = new Map<string, number>();
    for (const id of members.keys()) {
      if (own.has(id)) continue;
      // An unlabelled member leans to the topic it was found for.
      let s = 0.5 * (lab(id) || 1);
      for (const x of index.neighbors(id, k)) s += x.score * lab(x.id);
      next.set(id, s < 0 ? -1 : lab(id));
    }
    for (const [id, v] of next) label.set(id, v);
  }
  const drop = [...members.keys()].filter((id) => lab(id) < 0);
  if (members.size - drop.length < 0.3 * members.size) return none;
  for (const id of drop) members.delete(id);
  return { names, pruned: drop.length };
}

/** The largest group of a name's passages in the similarity graph, when it is one document's; else null. */
function siblingGroup(index: CorpusIndex, docs: ReadonlySet<string>, own: ReadonlySet<string>, k: number): string[] | null {
  const find = linkedGroups(docs, (d) => index.neighbors(d, k));
  let inside = 0;
  let toOwn = 0;
  let total = 0;
  for (const d of docs)
    for (const x of index.neighbors(d, k)) {
      total += x.score;
      if (docs.has(x.id)) inside += x.score;
      else if (own.has(x.id)) toOwn += x.score;
    }
  const sizes = new Map<string, number>();
  for (const d of docs) sizes.set(find(d), (sizes.get(find(d)) ?? 0) + 1);
  const [root, largest] = [...sizes.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0] ?? ['', 0];
  if (largest < MIN_GROUP_SHARE * docs.size || inside < MIN_COHESION * total || toOwn > MAX_OWN_LINK * total) return null;
  return [...docs].filter((d) => find(d) === root);
}

const nameShares = new WeakMap<CorpusIndex, Map<string, number>>();

/**
 * How often a term is written as a name: its capitalized occurrences, of all that do not open a sentence.
 * Read from the passages that hold the term, and memoized per index: pruning asks about few terms (the
 * topic's rare ones, and candidates that passed the cheaper tests), so a pass over a whole corpus would
 * cost a one-off query more than it saves.
 */
export function nameShare(index: CorpusIndex, term: string): number {
  let memo = nameShares.get(index);
  if (!memo) nameShares.set(index, (memo = new Map()));
  let share = memo.get(term);
  if (share === undefined) {
    let upper = 0;
    let all = 0;
    // A stem keeps all but its last letter of the word's start ("hilari" <- "Hilary"): a cheap test before stemming.
    const start = term.slice(0, Math.max(1, term.length - 1));
    for (const r of index.searchTerms([term], { limit: index.size, withTerms: false })) {
      const text = index.passage(r.id)?.text ?? '';
      for (const m of text.matchAll(/[\p{L}\p{N}'’]+/gu)) {
        const lower = m[0].toLowerCase();
        if (!lower.startsWith(start) || stemWord(normalizeWord(lower)) !== term) continue;
        if (m.index === 0 || /[.!?:]\s*$/.test(text.slice(Math.max(0, m.index - 3), m.index))) continue;
        all++;
        if (/^\p{Lu}/u.test(m[0])) upper++;
      }
    }
    share = all ? upper / all : 0;
    memo.set(term, share);
  }
  return share;
}
