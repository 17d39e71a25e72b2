import type { CorpusIndex } from './corpus-index';
import { extractPhrases } from './text-analysis';

/** A facet of a topic: a phrase or salient term that a group of on-topic passages share. */
export interface Facet {
  /** Stemmed key, e.g. "storm surg". */
  key: string;
  /** Readable label, the most frequent surface form, e.g. "storm surge". */
  label: string;
  /** Index terms of the key. */
  terms: string[];
  /** Passages (of the mined set) that contain the facet. */
  passageIds: string[];
  /** Relevance mass of those passages. */
  mass: number;
  /** mass x specificity: how much the facet is worth as a subtopic. */
  salience: number;
}

export interface FacetMiningOptions {
  /** Terms that define the topic itself; a facet made only of them is not a facet. */
  topicTerms: ReadonlySet<string>;
  /** A facet must occur in at least this many passages. */
  minSupport: number;
  /** ...and in at most this share of them (a term in every passage is the topic, not a facet). */
  maxShare: number;
  limit: number;
}

const phraseCache = new WeakMap<CorpusIndex, Map<string, { key: string; surface: string }[]>>();

/** Facet candidates of one passage: POS-tagged noun / proper-noun phrases and salient single terms. */
function candidatesOf(index: CorpusIndex, id: string): { key: string; surface: string }[] {
  let byId = phraseCache.get(index);
  if (!byId) phraseCache.set(index, (byId = new Map()));
  let out = byId.get(id);
  if (!out) {
    const text = index.passage(id)?.text ?? '';
    const seen = new Set<string>();
    out = [];
    for (const p of extractPhrases(text)) {
      if (seen.has(p.key)) continue;
      seen.add(p.key);
      out.push({ key: p.key, surface: p.surface });
      // A long noun compound also counts by its head pair ("record storm surge" -> "storm surge").
      if (p.kind === 'noun') {
        const words = p.key.split(' ');
        const surfaces = p.surface.split(' ');
        if (words.length > 2 && surfaces.length === words.length) {
          const key = words.slice(-2).join(' ');
          if (!seen.has(key)) {
            seen.add(key);
            out.push({ key, surface: surfaces.slice(-2).join(' ') });
          }
        }
      }
      // Each word of a proper name is also a candidate ("DeSantis" from "Ron DeSantis").
      if (p.kind === 'proper') {
        const words = p.key.split(' ');
        const surfaces = p.surface.split(' ');
        if (words.length > 1)
          words.forEach((w, i) => {
            if (!seen.has(w) && surfaces[i]) {
              seen.add(w);
              out!.push({ key: w, surface: surfaces[i]! });
            }
          });
      }
    }
    byId.set(id, out);
  }
  return out;
}

/**
 * Mine the facets of a set of scored passages: phrases and names that several of them share, minus
 * the topic's own terms, ranked by the relevance mass they gather times their specificity (IDF).
 */
export function mineFacets(index: CorpusIndex, passages: readonly { id: string; score: number }[], options: FacetMiningOptions): Facet[] {
  const acc = new Map<string, { ids: Set<string>; mass: number; surfaces: Map<string, number> }>();
  for (const p of passages) {
    for (const c of candidatesOf(index, p.id)) {
      const terms = c.key.split(' ').filter((t) => !options.topicTerms.has(t));
      if (terms.length === 0) continue;
      const key = terms.join(' ');
      let a = acc.get(key);
      if (!a) acc.set(key, (a = { ids: new Set(), mass: 0, surfaces: new Map() }));
      if (!a.ids.has(p.id)) {
        a.ids.add(p.id);
        a.mass += p.score;
      }
      const surface = c.key.split(' ').length === terms.length ? c.surface : surfaceWithout(c.surface, c.key, options.topicTerms);
      a.surfaces.set(surface, (a.surfaces.get(surface) ?? 0) + 1);
    }
  }
  const maxCount = Math.max(options.minSupport, Math.floor(options.maxShare * passages.length));
  const facets: Facet[] = [];
  for (const [key, a] of acc) {
    if (a.ids.size < options.minSupport || a.ids.size > maxCount) continue;
    const terms = key.split(' ');
    if (terms.some((t) => index.df(t) === 0)) continue;
    const specificity = terms.reduce((s, t) => s + index.idf(t), 0) / terms.length;
    const label = [...a.surfaces.entries()].sort((x, y) => y[1] - x[1] || x[0].localeCompare(y[0]))[0]![0];
    facets.push({
      key,
      label,
      terms,
      passageIds: [...a.ids].sort(),
      mass: a.mass,
      salience: a.mass * specificity * (terms.length > 1 ? 1.25 : 1),
    });
  }
  return facets.sort((a, b) => b.salience - a.salience || a.key.localeCompare(b.key)).slice(0, options.limit);
}

function surfaceWithout(surface: string, key: string, topicTerms: ReadonlySet<string>): string {
  const words = surface.split(' ');
  const keys = key.split(' ');
  if (words.length !== keys.length) return surface;
  return words.filter((_, i) => !topicTerms.has(keys[i]!)).join(' ');
}
