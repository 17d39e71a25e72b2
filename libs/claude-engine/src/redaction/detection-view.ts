/** Dashes that separate digit groups as '-' does: U+2010 hyphen (and U+2011 non-breaking, after NFKC) to U+2015, minus signs, small and full-width forms. */
const DASHES = /[\u2010-\u2015\u2212\u2043\u2e3a\u2e3b\ufe58\ufe63\uff0d]/g;
/** Invisible format characters (zero-width spaces and joiners, soft hyphen, bidi marks) and combining marks: dropped, so they cannot split or dress up a value. */
const INVISIBLE = /^[\p{Cf}\p{Mn}\p{Me}]$/u;
const SPACES = /\p{Zs}/gu;
const DIGIT = /^\p{Nd}$/u;

const digitValues = new Map<number, string>();
/** A decimal digit of any script as its ASCII digit: Unicode lays each script's digits out as a run of ten from 0. */
function asciiDigit(cp: number): string {
  let v = digitValues.get(cp);
  if (v === undefined) {
    let zero = cp;
    while (DIGIT.test(String.fromCodePoint(zero - 1))) zero--;
    v = String((cp - zero) % 10);
    digitValues.set(cp, v);
  }
  return v;
}

/**
 * The text as the redaction rules read it, and where each of its UTF-16 units came from in the original.
 * Each code point is NFKC-normalised (full-width letters, digits, `＠` and `．` become ASCII), digits of other
 * scripts (Arabic-Indic, Devanagari…) become ASCII digits, Unicode spaces ' ', dashes '-', and format characters
 * and combining marks vanish; so `4111\u00a01111…` and `ｊａｎｅ＠ｅｘａｍｐｌｅ．ｃｏｍ` read like
 * their ASCII forms. Matches are mapped back and replaced in the original, so text around them is never changed:
 * quotes are checked against the redacted text, and must still occur in it.
 */
export interface DetectionView {
  text: string;
  /** The original range [start, end) that produced the view's units [viewStart, viewEnd). */
  original(viewStart: number, viewEnd: number): [number, number];
}

const readableCache = new Map<number, string>();
/** What one non-ASCII code point reads as; cached, since a text repeats few distinct ones (bounded: cleared when full). */
function readableCached(cp: number, ch: string): string {
  let out = readableCache.get(cp);
  if (out === undefined) {
    if (readableCache.size >= 65_536) readableCache.clear();
    out = readable(ch);
    readableCache.set(cp, out);
  }
  return out;
}

function readable(ch: string): string {
  if (INVISIBLE.test(ch)) return '';
  const n = ch.normalize('NFKC');
  if (DIGIT.test(n)) return asciiDigit(n.codePointAt(0)!);
  return n.replace(SPACES, ' ').replace(DASHES, '-');
}

export function detectionView(text: string): DetectionView {
  const nonAscii = /[^\x00-\x7f]/g;
  // Plain ASCII reads as it is: most text takes this path, without a map.
  if (!nonAscii.test(text)) return { text, original: (s, e) => [s, e] };
  const parts: string[] = [];
  /** For each unit of the view, the index in `text` of the code point it came from. */
  const from: number[] = [];
  for (let i = 0; i < text.length; ) {
    // ASCII up to the next other character, as it is.
    nonAscii.lastIndex = i;
    const next = nonAscii.test(text) ? nonAscii.lastIndex - 1 : text.length;
    if (next > i) {
      parts.push(text.slice(i, next));
      for (let k = i; k < next; k++) from.push(k);
      i = next;
      continue;
    }
    const cp = text.codePointAt(i)!;
    const len = cp > 0xffff ? 2 : 1;
    const out = readableCached(cp, text.slice(i, i + len));
    parts.push(out);
    for (let k = 0; k < out.length; k++) from.push(i);
    i += len;
  }
  const endOf = (at: number) => at + (text.codePointAt(at)! > 0xffff ? 2 : 1);
  return { text: parts.join(''), original: (s, e) => [from[s]!, endOf(from[e - 1]!)] };
}
