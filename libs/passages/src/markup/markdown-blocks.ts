import MarkdownIt from 'markdown-it';
import { htmlBlocks } from './html-blocks';
import { codeSpan, oneLine, type TextBlock } from './text-block';

type Token = ReturnType<InstanceType<typeof MarkdownIt>['parse']>[number];

// GFM tables and strikethrough (the default preset) and raw HTML as tokens of its own, so that HTML in a README
// (centred logos, <h1>s, <details>) is read as HTML; bare URLs stay text.
const md = new MarkdownIt({ html: true, linkify: false });

const ALERT = /^\[!(?:NOTE|TIP|IMPORTANT|WARNING|CAUTION)\]\s*/i;

/** YAML front matter ("---" lines at the very top) is metadata, not text. */
const FRONT_MATTER = /^---\r?\n[\s\S]*?\r?\n---[ \t]*(\r?\n|$)/;

/**
 * A Markdown document's blocks, parsed by markdown-it: headings, paragraphs, list items and table rows with
 * links as their text, images and badges dropped, entities and backslash escapes decoded; fenced and indented
 * code kept as written; HTML blocks read by the HTML reader.
 */
export function markdownBlocks(source: string): TextBlock[] {
  const tokens = md.parse(source.replace(FRONT_MATTER, ''), {});
  const blocks: TextBlock[] = [];
  // Lines of the list or table being read: one block when the outermost one closes.
  let group: string[] = [];
  let lists = 0;
  let tables = 0;
  let row: string[] = [];
  // Markers of the open list items: "- ", "1. ", and whether the item's first line is written.
  const items: { marker: string; started: boolean }[] = [];
  const ordinals: number[] = [];
  const flushGroup = (): void => {
    const text = group.join('\n').trim();
    if (text) blocks.push({ kind: 'text', text });
    group = [];
  };
  const text = (written: string): void => {
    // A GitHub alert's marker ("> [!NOTE]") is markup, not text.
    const line = written.replace(ALERT, '');
    if (!line) return;
    if (lists || tables) group.push(line);
    else blocks.push({ kind: 'text', text: line });
  };
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    switch (t.type) {
      case 'heading_open': {
        const heading = oneLine(inlineText(tokens[i + 1]));
        if (lists || tables) flushGroup();
        if (heading) blocks.push({ kind: 'heading', level: Number(t.tag.slice(1)), text: heading });
        i += 2;
        break;
      }
      case 'bullet_list_open':
      case 'ordered_list_open':
        lists++;
        ordinals.push(t.type === 'ordered_list_open' ? Number(t.attrGet('start') ?? 1) : 0);
        break;
      case 'bullet_list_close':
      case 'ordered_list_close':
        lists--;
        ordinals.pop();
        if (!lists && !tables) flushGroup();
        break;
      case 'list_item_open': {
        const n = ordinals[ordinals.length - 1]!;
        items.push({ marker: n ? `${n}. ` : '- ', started: false });
        if (n) ordinals[ordinals.length - 1] = n + 1;
        break;
      }
      case 'list_item_close':
        items.pop();
        break;
      case 'table_open':
        tables++;
        break;
      case 'table_close':
        tables--;
        if (!lists && !tables) flushGroup();
        break;
      case 'tr_open':
        row = [];
        break;
      case 'tr_close':
        if (row.some(Boolean)) group.push(row.join(' | '));
        break;
      case 'inline': {
        const line = oneLine(inlineText(t));
        if (tables && (tokens[i - 1]?.type === 'th_open' || tokens[i - 1]?.type === 'td_open')) {
          row.push(line);
          break;
        }
        const item = items[items.length - 1];
        if (item && line) {
          const indent = '  '.repeat(items.length - 1);
          text(item.started ? `${indent}  ${line}` : `${indent}${item.marker}${line}`);
          item.started = true;
        } else text(line);
        break;
      }
      case 'fence':
      case 'code_block':
        if (lists || tables) flushGroup();
        if (t.content.trim()) blocks.push({ kind: 'code', lang: oneLine(t.info).split(' ')[0] ?? '', text: t.content.replace(/\n+$/, '') });
        break;
      case 'html_block':
        if (lists || tables) flushGroup();
        blocks.push(...htmlBlocks(t.content));
        break;
      default:
        break;
    }
  }
  flushGroup();
  return blocks;
}

/** An inline token's text: links as their text, code spans kept, images and inline HTML dropped. */
function inlineText(token: Token | undefined): string {
  let out = '';
  for (const c of token?.children ?? []) {
    if (c.type === 'text') out += c.content;
    else if (c.type === 'code_inline') out += codeSpan(c.content);
    else if (c.type === 'softbreak' || c.type === 'hardbreak') out += ' ';
    else if (c.type === 'html_inline' && /^<br\b/i.test(c.content)) out += ' ';
  }
  return out;
}
