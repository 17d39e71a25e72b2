import MarkdownIt from 'markdown-it';
import { mdParagraph } from './markdown-escape';

type Token = ReturnType<InstanceType<typeof MarkdownIt>['parse']>[number];

// Parses as a permissive reader would (raw HTML on, GFM tables), so whatever could turn active is seen as such.
const reader = new MarkdownIt({ html: true, linkify: false });

/** What a report's prose may not hold: markup a renderer would run or follow, or a heading that could pose as the report's. */
const ACTIVE = new Set(['html_block', 'html_inline', 'image', 'link_open', 'heading_open']);

/** Whether a piece of Markdown holds nothing active, as markdown-it parses it. */
export function isInert(markdown: string): boolean {
  const walk = (tokens: readonly Token[]): boolean => tokens.every((t) => !ACTIVE.has(t.type) && walk(t.children ?? []));
  return walk(reader.parse(markdown, {}));
}

/**
 * One line of a lead's prose as Markdown that keeps its tables, lists, emphasis and code spans: what could open HTML
 * or an autolink (`<`), an entity, a link, an image or a reference definition (`[`, `]`) is escaped, and so is a
 * heading or a setext underline at the start. Control characters go.
 */
function proseLine(line: string): string {
  return line
    .replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029]/g, ' ')
    .replace(/&(?=#?[a-z0-9]+;)/gi, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/[[\]]/g, (c) => `\\${c}`)
    .replace(/^(\s*)(#{1,6})(?=\s|$)/, '$1\\$2')
    .replace(/^(\s*)([=-])(?=\2*\s*$)/, '$1\\$2');
}

/**
 * A lead's Markdown prose made safe to publish: tables, lists and emphasis stay; raw HTML, links, images and headings
 * become text. The result is checked with a Markdown parser, and text that would still parse as active (or a fenced
 * block, whose content must stay verbatim) is escaped whole instead, as any other text is.
 */
export function mdProse(text: string): string {
  if (/^\s*(`{3,}|~{3,})/m.test(text)) return mdParagraph(text);
  const safe = text.split('\n').map(proseLine).join('\n').trim();
  return isInert(safe) ? safe : mdParagraph(text);
}

/**
 * Prose cut into sentences, each followed by its citation marks: after the sentence's last character, or in a table
 * row inside its last cell. Each sentence is made safe as `mdProse` makes it, and the whole is checked again.
 */
export function mdSentences(sentences: readonly { text: string; refs: string }[]): string | undefined {
  const out = sentences
    .map(({ text, refs }) => {
      const body = text.replace(/\s+$/, '');
      const tail = text.slice(body.length);
      const safe = body.split('\n').map(proseLine).join('\n');
      if (!refs) return safe + tail;
      const row = /^(\s*\|.*?)(\s*\|\s*)$/.exec(safe);
      return (row ? `${row[1]} ${refs}${row[2]}` : `${safe} ${refs}`) + tail;
    })
    .join('')
    .trim();
  return isInert(out) && !/^\s*(`{3,}|~{3,})/m.test(out) ? out : undefined;
}
