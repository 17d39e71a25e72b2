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
    .replace(/[\\`*_[\]<>|~&#]/g, (c) => (c === '<' ? '&lt;' : c === '>' ? '&gt;' : c === '&' ? '&amp;' : `\\${c}`))
    .replace(/^([-+=])/, '\\$1')
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

/** A fenced code block in source text: its fence, info string and body. */
const FENCED = /(?:^|\n)[ \t]*(`{3,}|~{3,})[ \t]*([^\n`]*)\n([\s\S]*?)\n[ \t]*\1[`~]*[ \t]*(?=\n|$)/g;

/**
 * Text that may hold fenced code blocks (a passage of a Markdown document, kept whole): the prose escaped as
 * `mdText` does, each code block as a fenced block of its own whose fence is longer than any backtick run in
 * the code, so the code cannot close it early, and whose info string is a bare language name. Inside a fence
 * nothing is interpreted, so the code is shown as written.
 */
export function mdTextWithCode(text: string): string {
  const out: string[] = [];
  let at = 0;
  for (const m of text.matchAll(FENCED)) {
    const before = text.slice(at, m.index);
    if (before.trim()) out.push(mdText(before));
    const code = m[3]!.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029]/g, ' ');
    const longest = Math.max(0, ...[...code.matchAll(/`+/g)].map((r) => r[0].length));
    const fence = '`'.repeat(Math.max(3, longest + 1));
    const lang = /^[\w+#.-]{1,30}$/.test(m[2]!.trim()) ? m[2]!.trim() : '';
    out.push(`\n\n${fence}${lang}\n${code}\n${fence}\n\n`);
    at = m.index + m[0].length;
  }
  const rest = text.slice(at);
  if (rest.trim()) out.push(mdText(rest));
  return out.join(' ').replace(/ ?\n\n ?/g, '\n\n').replace(/^\n+|\n+$/g, '');
}
