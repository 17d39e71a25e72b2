/**
 * User and source text in Markdown: every character that could open HTML, an autolink, a link, an emphasis, a
 * code span or fence, a table cell or a heading is escaped, as is a list or quote marker at the start, and line
 * breaks and control characters become spaces, so text stays text in any renderer and cannot start a block of
 * its own. The JSON report keeps the same text unescaped, as data.
 */
export function mdText(text: string): string {
  return text
    .replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ')
    .trim()
    // An ampersand opens nothing unless an entity follows it, and a '>' nothing but a quote at the start: escaped
    // only there, the raw Markdown keeps "AT&T" and "README.md > Usage" as a reader wrote them.
    .replace(/&(?=#?[a-z0-9]+;)/gi, '&amp;')
    .replace(/[\\`*_[\]<|~#]/g, (c) => (c === '<' ? '&lt;' : `\\${c}`))
    .replace(/^([-+=>])/, '\\$1')
    .replace(/^(\d+)([.)])/, '$1\\$2');
}

/** A link to an http(s) URL as a Markdown autolink, normalized (spaces and brackets encoded); anything else as text. */
export function mdUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.protocol === 'http:' || u.protocol === 'https:') return `<${u.href.replace(/[<>\s]/g, encodeURIComponent)}>`;
  } catch {
    // not a URL: shown as text below
  }
  return mdText(url);
}

/** A fenced code block inside a paragraph's text (a quoted code block): its fence, language and code. */
const CODE_IN_TEXT = /(?<=^|\s)[“"]?(`{3,})([\w+#.-]*)\n([\s\S]*?)\n\1(?!`)[”"]?(?=\s|$)/g;

/**
 * A paragraph's text as Markdown: prose escaped as by `mdText`, and a code block it quotes written as a fenced
 * block of its own, with a fence longer than any run of backticks in it (so it cannot close early) and control
 * characters other than tabs removed. Inside a fence, a renderer shows everything as text.
 */
export function mdParagraph(text: string): string {
  const parts: string[] = [];
  let last = 0;
  for (const m of text.matchAll(CODE_IN_TEXT)) {
    const prose = mdText(text.slice(last, m.index));
    if (prose) parts.push(prose);
    const code = m[3]!.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029]/g, '');
    const longest = Math.max(0, ...(code.match(/`+/g) ?? []).map((r) => r.length));
    const fence = '`'.repeat(Math.max(3, longest + 1));
    parts.push(`${fence}${m[2]}\n${code}\n${fence}`);
    last = m.index + m[0].length;
  }
  const rest = mdText(text.slice(last));
  if (rest || !parts.length) parts.push(rest);
  return parts.join('\n\n');
}
