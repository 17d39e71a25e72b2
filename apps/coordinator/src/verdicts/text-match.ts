/** Whitespace-normalized text: NFC, runs of whitespace collapsed to one space, trimmed. Case is kept (quotes are verbatim). */
export function normalizeWhitespace(s: string): string {
  return s.normalize('NFC').replace(/\s+/g, ' ').trim();
}

/** Whether `quote` occurs verbatim in `text`, ignoring differences in whitespace. An empty quote never occurs. */
export function quoteOccursIn(quote: string, text: string): boolean {
  const q = normalizeWhitespace(quote);
  return q.length > 0 && normalizeWhitespace(text).includes(q);
}
