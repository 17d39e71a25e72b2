import type { YearWindow } from '@orrery/protocol';

const ORDINALS = ['first', 'second', 'third', 'fourth', 'fifth', 'sixth', 'seventh', 'eighth', 'ninth', 'tenth', 'eleventh', 'twelfth', 'thirteenth', 'fourteenth', 'fifteenth', 'sixteenth', 'seventeenth', 'eighteenth', 'nineteenth', 'twentieth', 'twenty-first'];
const RANGE = /\b(?:between|from)\s+(\d{4})\s*(?:and|to|-|–|until|through)\s*(\d{4})\b/i;
const SINCE = /\b(since|after|from)\s+(\d{4})\b/i;
const BEFORE = /\b(?:before|until|up\s+to)\s+(\d{4})\b/i;
const DECADE = /\b(?:in|during|over|across|through(?:out)?|of)\s+the\s+(\d{3})0s\b/i;
const CENTURY = /\b(?:in|during|over|across|through(?:out)?|of)\s+the\s+(\d{1,2}(?:st|nd|rd|th)|[a-z-]+)\s+century\b/i;

/**
 * The years a question asks about ("since 1900", "over the nineteenth century", "in the 1920s", "between 1850
 * and 1900"), or null when it names none. A question bounded in time is answered from those years only.
 */
export function askedYears(question: string): YearWindow | null {
  let m = RANGE.exec(question);
  if (m) return Number(m[1]) <= Number(m[2]) ? { from: Number(m[1]), to: Number(m[2]) } : null;
  if ((m = SINCE.exec(question))) return { from: Number(m[2]) + (m[1]!.toLowerCase() === 'after' ? 1 : 0), to: 9999 };
  if ((m = BEFORE.exec(question))) return { from: -9999, to: Number(m[1]) - 1 };
  if ((m = DECADE.exec(question))) return { from: Number(m[1]) * 10, to: Number(m[1]) * 10 + 9 };
  if ((m = CENTURY.exec(question))) {
    const word = m[1]!.toLowerCase();
    const n = /^\d/.test(word) ? parseInt(word, 10) : ORDINALS.indexOf(word) + 1;
    return n > 0 ? { from: (n - 1) * 100, to: (n - 1) * 100 + 99 } : null;
  }
  return null;
}

/** The years outside what a question asks about, as windows a search leaves out. */
export function yearsOutside(asked: YearWindow): YearWindow[] {
  return [...(asked.from > -9999 ? [{ from: -9999, to: asked.from - 1 }] : []), ...(asked.to < 9999 ? [{ from: asked.to + 1, to: 9999 }] : [])];
}
