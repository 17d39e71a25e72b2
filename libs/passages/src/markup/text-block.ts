/**
 * A document's content once its markup is parsed: headings, prose (links as their text, entities decoded,
 * images dropped) and code kept as it was written. Markdown and HTML both come down to this.
 */
export type TextBlock =
  | { kind: 'heading'; level: number; text: string }
  | { kind: 'text'; text: string }
  | { kind: 'code'; lang: string; text: string };

/** Inline text as one line: runs of whitespace become one space. */
export const oneLine = (text: string): string => text.replace(/\s+/g, ' ').trim();

/** Code as a fenced block, with a fence longer than any run of backticks inside it. */
export function fencedCode(lang: string, code: string): string {
  const longest = Math.max(0, ...(code.match(/`+/g) ?? []).map((r) => r.length));
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return `${fence}${lang}\n${code.replace(/\n+$/, '')}\n${fence}`;
}

/** Inline code as a code span, with backticks that cannot close early. */
export function codeSpan(code: string): string {
  const longest = Math.max(0, ...(code.match(/`+/g) ?? []).map((r) => r.length));
  const ticks = '`'.repeat(longest + 1);
  return longest ? `${ticks} ${code} ${ticks}` : `${ticks}${code}${ticks}`;
}
