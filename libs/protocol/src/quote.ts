/** Whitespace-normalized text: NFC, runs of whitespace collapsed to one space, trimmed. Case is kept (quotes are verbatim). */
export function normalizeWhitespace(s: string): string {
  return s.normalize('NFC').replace(/\s+/g, ' ').trim();
}

/**
 * The product's core rule, in one place: a quote occurs verbatim in its source. Case-sensitive; only Unicode
 * normalisation (NFC) and whitespace may differ. An empty quote never occurs.
 */
export function quoteOccursIn(quote: string, text: string): boolean {
  const q = normalizeWhitespace(quote);
  return q.length > 0 && normalizeWhitespace(text).includes(q);
}
