/**
 * Where a citation's quote sits in its source's text, as [start, end) offsets into the text. The server
 * verified the quote with whitespace collapsed and case folded, so the search here does the same, then
 * maps the match back to the original characters. undefined when the quote is not in the text.
 */
export function quoteSpan(text: string, quote: string): [number, number] | undefined {
  const exact = text.indexOf(quote);
  if (exact >= 0 && quote.length) return [exact, exact + quote.length];
  const folded = fold(text);
  const needle = fold(quote).chars.trim();
  if (!needle) return undefined;
  const at = folded.chars.indexOf(needle);
  if (at < 0) return undefined;
  return [folded.origin[at]!, folded.origin[at + needle.length - 1]! + 1];
}

/** Lower-cased with every whitespace run as one space, and for each folded character its offset in the input. */
function fold(s: string): { chars: string; origin: number[] } {
  let chars = '';
  const origin: number[] = [];
  let inSpace = false;
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (/\s/.test(c)) {
      if (!inSpace) {
        chars += ' ';
        origin.push(i);
      }
      inSpace = true;
    } else {
      const lower = c.toLowerCase();
      // Some characters lower-case to two (İ): keep the offsets aligned with the folded string.
      for (let k = 0; k < lower.length; k++) origin.push(i);
      chars += lower;
      inSpace = false;
    }
  }
  return { chars, origin };
}
