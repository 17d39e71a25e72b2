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
