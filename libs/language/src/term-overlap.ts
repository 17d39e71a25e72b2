/**
 * Cheap content-term matching for the relevance and scope checks (L0, no model).
 * A term's key: lowercase word of >= MIN_TERM_LENGTH letters/digits, not a stopword, with a light plural
 * strip, cut to STEM_PREFIX_LENGTH characters, so "immigration"/"immigrants" and "economy"/"economic" match.
 * Not `analyzeTerms` (wink's lexicon and Porter2 stems): the hub's verdicts match any language's letters and
 * fold more ("economy"/"economic" share a 6-letter prefix, not a Porter stem), and they run on every result without
 * loading the NLP model; swapping one for the other would move the checks' verdicts.
 */
export const MIN_TERM_LENGTH = 3;
export const STEM_PREFIX_LENGTH = 6;

const STOPWORDS = new Set(
  (
    'the and for are but not you all any can had her was one our out has him his how its may new now old see two way who did get let put say she too use ' +
    'that with have this will your from they know want been good much some time very when come here just like long make many more only over such take than ' +
    'them well were what into also about after again being between both could does each most other should their there these those through under until where ' +
    'which while would whom why because before during above below off own same then once further few nor per via upon within without against among ' +
    'is it in of on to as at by an or be we us if so no do my me up'
  ).split(/\s+/),
);

function keyOf(word: string): string {
  let w = word;
  if (w.length > 4 && w.endsWith('ies')) w = `${w.slice(0, -3)}y`;
  else if (w.length > 4 && /(s|x|z|ch|sh)es$/.test(w)) w = w.slice(0, -2);
  else if (w.length > 3 && w.endsWith('s') && !w.endsWith('ss')) w = w.slice(0, -1);
  return w.length > STEM_PREFIX_LENGTH ? w.slice(0, STEM_PREFIX_LENGTH) : w;
}

/** The set of term keys in a text. */
export function termKeys(text: string): Set<string> {
  const out = new Set<string>();
  for (const m of text.toLowerCase().matchAll(/[\p{L}\p{N}]+/gu)) {
    const w = m[0];
    if (w.length < MIN_TERM_LENGTH || STOPWORDS.has(w)) continue;
    out.add(keyOf(w));
  }
  return out;
}

/** How many keys of `a` are in `b`. */
export function overlap(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  let n = 0;
  for (const k of a) if (b.has(k)) n++;
  return n;
}

/** Whether a (possibly multi-word) scope term is present: every one of its keys occurs in `keys`. Terms with no content key never match. */
export function mentionsTerm(term: string, keys: ReadonlySet<string>): boolean {
  const tk = termKeys(term);
  if (tk.size === 0) return false;
  for (const k of tk) if (!keys.has(k)) return false;
  return true;
}
