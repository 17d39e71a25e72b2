import { allowedTitleStems, analyzeTerms, isNamePhrase, titleCandidates } from '@orrery/language';

/**
 * Section titles that mean something: keyphrases that occur in the section's own quotes, chosen by how much
 * more the section says them than the rest of the report, never a month, an office, a stopword or a number.
 */

/** A title's own words; a period prefix ("1860–1879: …") is the sources' dates, not a claim about the text. */
const PERIOD_PREFIX = /^\d{3,4}(\s*[–-]\s*\d{3,4})?\s*:\s*/;

/**
 * Whether a title is grounded in its section: every content word of it (a period prefix aside) occurs in the
 * section's quotes or the titles of the sources they come from, and none is a month, an office or a bare number.
 */
export function titleGrounded(title: string, quotes: readonly string[], sourceTitles: readonly string[] = []): boolean {
  const bare = title.replace(PERIOD_PREFIX, '');
  const own = analyzeTerms(bare);
  if (own.length === 0) return false;
  if (own.some((t) => /^[0-9]/.test(t)) || !allowedTitleStems(own, isNamePhrase(bare.split(/\s+/)))) return false;
  const seen = new Set([...quotes, ...sourceTitles].flatMap((q) => analyzeTerms(q)));
  return own.every((t) => seen.has(t));
}

/**
 * The section's title: `preferred` (the plan's facet) when grounded in the section, else the keyphrase its
 * quotes say most, weighed against how many other sections say it too (a phrase every section shares names
 * none of them) and how specific its words are in the corpus; a two-word phrase said at least twice beats its
 * words alone. `avoid` holds keys already used.
 */
export function groundedTitle(
  quotes: readonly string[],
  otherSections: readonly (readonly string[])[],
  preferred: string | null,
  avoid: ReadonlySet<string> = new Set(),
  specificity: (key: string) => number = () => 1,
): string {
  if (preferred && titleGrounded(preferred, quotes) && !avoid.has(analyzeTerms(preferred).join(' '))) return preferred;
  const counts = new Map<string, { surface: Map<string, number>; n: number }>();
  for (const q of quotes) {
    const seen = new Set<string>();
    for (const c of titleCandidates(q)) {
      if (seen.has(c.key)) continue;
      seen.add(c.key);
      const e = counts.get(c.key) ?? { surface: new Map(), n: 0 };
      e.n++;
      e.surface.set(c.surface.toLowerCase() === c.surface ? c.surface : c.surface, (e.surface.get(c.surface) ?? 0) + 1);
      counts.set(c.key, e);
    }
  }
  const elsewhere = (key: string): number => otherSections.filter((s) => s.some((q) => titleCandidates(q).some((c) => c.key === key))).length;
  let best: { key: string; score: number } | null = null;
  for (const [key, e] of counts) {
    if (avoid.has(key)) continue;
    const two = key.includes(' ');
    if (two && e.n < 2 && quotes.length > 1) continue;
    const score = ((e.n * (two ? 1.5 : 1)) / (1 + elsewhere(key))) * Math.sqrt(specificity(key)) + (two ? 0.01 : 0);
    if (!best || score > best.score || (score === best.score && key < best.key)) best = { key, score };
  }
  if (!best) return preferred ?? 'Evidence';
  const surfaces = [...counts.get(best.key)!.surface.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  return capitalize(surfaces[0]![0]);
}

const capitalize = (s: string): string => (/^\p{Ll}+\p{Lu}/u.test(s) ? s : s.charAt(0).toUpperCase() + s.slice(1));

/**
 * The phrase among the quotes' title candidates that holds every one of `stems` and whose words more than half
 * the quotes hold, longest first, then most held ("Parks" → "National parks" when most of its quotes say so); null
 * when none is. A one-word theme is then named by the phrase its quotes say it in.
 */
export function heldPhrase(stems: readonly string[], quotes: readonly { quote: string; terms: ReadonlySet<string> }[]): string | null {
  const surfaces = new Map<string, Map<string, number>>();
  for (const q of quotes)
    for (const c of titleCandidates(q.quote)) {
      const words = c.key.split(' ');
      if (!stems.every((s) => words.includes(s))) continue;
      const m = surfaces.get(c.key) ?? new Map<string, number>();
      m.set(c.surface, (m.get(c.surface) ?? 0) + 1);
      surfaces.set(c.key, m);
    }
  const held = (key: string): number => quotes.filter((q) => key.split(' ').every((t) => q.terms.has(t))).length;
  const key = [...surfaces.keys()]
    .filter((k) => held(k) * 2 > quotes.length)
    .sort((a, b) => b.split(' ').length - a.split(' ').length || held(b) - held(a) || a.localeCompare(b))[0];
  return key ? [...surfaces.get(key)!.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0]![0] : null;
}
