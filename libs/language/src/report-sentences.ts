/**
 * A paragraph of Markdown cut into the units a citation attaches to: a sentence of prose (by the runtime's
 * language-aware sentence segmenter, so "U.S." or "3.5" do not end one), a table row, a list item, or a fenced
 * code block whole. The pieces, joined, are the paragraph again, character for character.
 */
export function sentencesOf(text: string, language = 'en'): string[] {
  const pieces: string[] = [];
  const segmenter = segmenterFor(language);
  const lines = text.split(/(?<=\n)/);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const fence = /^\s*(`{3,}|~{3,})/.exec(line);
    if (fence) {
      let block = line;
      while (++i < lines.length) {
        block += lines[i]!;
        if (lines[i]!.trimStart().startsWith(fence[1]!)) break;
      }
      pieces.push(block);
      continue;
    }
    if (isBlockLine(line)) {
      pieces.push(line);
      continue;
    }
    for (const s of segmenter.segment(line)) pieces.push(s.segment);
  }
  // Whitespace alone is no sentence: it stays with the one before it.
  const out: string[] = [];
  for (const p of pieces) {
    if (out.length && !/\S/.test(p)) out[out.length - 1] += p;
    else out.push(p);
  }
  return out;
}

/** A table row, list item or quote line: one unit whatever its punctuation. */
function isBlockLine(line: string): boolean {
  return /^\s*(\||[-*+]\s|\d+[.)]\s|>)/.test(line);
}

/** A unit a citation can attach to: it says something (a table's separator row or a blank says nothing). */
export function citeable(piece: string): boolean {
  return /[\p{L}\p{N}]/u.test(piece) && !/^\s*\|?\s*:?-{3,}/.test(piece);
}

function segmenterFor(language: string): Intl.Segmenter {
  try {
    return new Intl.Segmenter(language, { granularity: 'sentence' });
  } catch {
    return new Intl.Segmenter('en', { granularity: 'sentence' });
  }
}
