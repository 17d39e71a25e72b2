/** Dashes that separate digit groups as '-' does: U+2010 hyphen (and U+2011 non-breaking, after NFKC) to U+2015, minus signs, small and full-width forms. */
const DASHES = /[\u2010-\u2015\u2212\u2043\u2e3a\u2e3b\ufe58\ufe63\uff0d]/g;
/** Invisible format characters (zero-width spaces and joiners, soft hyphen, bidi marks): dropped, so they cannot split a value. */
const FORMAT = /^\p{Cf}$/u;
const SPACES = /\p{Zs}/gu;

/**
 * The text as the redaction rules read it, and where each of its UTF-16 units came from in the original.
 * Each code point is NFKC-normalised (full-width letters, digits, `＠` and `．` become ASCII), Unicode spaces become
 * ' ', dashes '-', and format characters vanish; so `4111\u00a01111…` and `ｊａｎｅ＠ｅｘａｍｐｌｅ．ｃｏｍ` read like
 * their ASCII forms. Matches are mapped back and replaced in the original, so text around them is never changed:
 * quotes are checked against the redacted text, and must still occur in it.
 */
export interface DetectionView {
  text: string;
  /** The original range [start, end) that produced the view's units [viewStart, viewEnd). */
  original(viewStart: number, viewEnd: number): [number, number];
}

function readable(ch: string): string {
  if (FORMAT.test(ch)) return '';
  return ch.normalize('NFKC').replace(SPACES, ' ').replace(DASHES, '-');
}

export function detectionView(text: string): DetectionView {
  // Plain ASCII reads as it is: most text takes this path, without a map.
  if (!/[^\x00-\x7f]/.test(text)) return { text, original: (s, e) => [s, e] };
  let view = '';
  const from: number[] = [];
  const to: number[] = [];
  for (let i = 0; i < text.length; ) {
    const cp = text.codePointAt(i)!;
    const len = cp > 0xffff ? 2 : 1;
    const ch = text.slice(i, i + len);
    const out = cp < 0x80 ? ch : readable(ch);
    view += out;
    for (let k = 0; k < out.length; k++) {
      from.push(i);
      to.push(i + len);
    }
    i += len;
  }
  return { text: view, original: (s, e) => [from[s]!, to[e - 1]!] };
}
