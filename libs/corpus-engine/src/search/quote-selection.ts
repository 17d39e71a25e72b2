import type { CorpusIndex } from '../index/corpus-index';
import { analyzeTerms, sentenceSpans } from '@orrery/language';
import { clipText } from '@orrery/protocol';

export interface QuoteChoice {
  quote: string;
  /** Offset of the quote in the passage text. */
  start: number;
}

const MAX_QUOTE = 1200;

/**
 * The sentence of a passage that best carries the wanted terms (IDF-weighted, length-normalized).
 * Always a verbatim substring of the passage text. `says` tells a sentence that names the topic in the sense asked
 * ("the trusts", not "I trust") from one that only shares its stem.
 */
export function selectQuote(index: CorpusIndex, text: string, wanted: Iterable<string>, topicTerms: Iterable<string> = [], says: (sentence: string) => boolean = () => true): QuoteChoice {
  const want = new Set(wanted);
  const topic = new Set(topicTerms);
  let best: QuoteChoice | null = null;
  let bestScore = -1;
  for (const s of sentenceSpans(text)) {
    if (s.text.length < 15 && best) continue;
    const terms = new Set(analyzeTerms(s.text));
    let score = 0;
    for (const t of terms) if (want.has(t)) score += index.idf(t);
    score /= Math.sqrt(Math.max(8, terms.size));
    // A sentence that names the topic itself beats one that only shares a facet word.
    if ([...topic].some((t) => terms.has(t)) && says(s.text)) score = score * 2 + 1;
    if (s.text.length > MAX_QUOTE) score *= 0.5;
    if (score > bestScore) {
      bestScore = score;
      best = { quote: s.text, start: s.start };
    }
  }
  if (!best) return { quote: clipText(text.trim(), MAX_QUOTE), start: text.indexOf(text.trim()) };
  if (best.quote.length > MAX_QUOTE) best = { quote: clipText(best.quote, MAX_QUOTE), start: best.start };
  return best;
}
