import MarkdownIt from 'markdown-it';
import { stripVTControlCharacters, styleText } from 'node:util';

type Token = ReturnType<InstanceType<typeof MarkdownIt>['parse']>[number];
type Style = Parameters<typeof styleText>[0];

// CommonMark with GFM tables, as the report is written; its HTML is escaped text, so none is read as markup.
const md = new MarkdownIt({ html: false, linkify: false });

export interface TerminalOptions {
  /** Columns to wrap prose at. */
  width: number;
  /** ANSI styles (bold headings, coloured code); off for NO_COLOR. */
  color: boolean;
}

/**
 * A Markdown report as a terminal shows it: the Markdown is parsed (markdown-it), so escapes (`\*`) and entities
 * (`&gt;`) are read, not shown; headings are bold, prose is wrapped, code blocks are indented and never wrapped,
 * lists keep their markers, tables are laid out in columns, and links show their text and address.
 */
export function markdownForTerminal(markdown: string, options: TerminalOptions): string {
  // The caller chose colour (report-output: a TTY, no NO_COLOR); since Node 22 styleText would check process.stdout itself.
  const style = (s: Style, text: string): string => (options.color ? styleText(s, text, { validateStream: false }) : text);
  const width = Math.max(40, Math.min(options.width, 100));
  const out: string[] = [];
  const lists: { ordered: boolean; n: number }[] = [];
  let quote = 0;
  let table: string[][] | null = null;
  let row: string[] = [];
  let itemStart = false;
  const prefix = (): string => '│ '.repeat(quote);
  const block = (lines: string[]): void => {
    out.push(...lines.map((l) => (prefix() + l).trimEnd()));
    if (!lists.length) out.push('');
  };
  const tokens = md.parse(markdown, {});
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    switch (t.type) {
      case 'heading_open': {
        const text = inline(tokens[i + 1], style);
        const level = Number(t.tag.slice(1));
        block(level === 1 ? [style(['bold', 'underline'], text)] : [style('bold', text)]);
        i += 2;
        break;
      }
      case 'paragraph_open': {
        const text = inline(tokens[i + 1], style);
        const depth = lists.length;
        if (depth && itemStart) {
          const list = lists[depth - 1]!;
          const marker = list.ordered ? `${list.n}. ` : '• ';
          const indent = '  '.repeat(depth);
          block(wrap(text, width - indent.length - marker.length - quote * 2).map((l, k) => (k ? indent + ' '.repeat(marker.length) : indent.slice(2) + marker) + l));
          itemStart = false;
        } else if (depth) {
          const indent = '  '.repeat(depth + 1);
          block(wrap(text, width - indent.length).map((l) => indent + l));
        } else block(wrap(text, width - quote * 2));
        i += 2;
        break;
      }
      case 'fence':
      case 'code_block': {
        const indent = '    ' + '  '.repeat(lists.length);
        block(t.content.replace(/\n$/, '').split('\n').map((l) => indent + style('cyan', l)));
        if (lists.length) out.push('');
        break;
      }
      case 'bullet_list_open':
      case 'ordered_list_open':
        lists.push({ ordered: t.type === 'ordered_list_open', n: Number(t.attrGet('start') ?? 1) - 1 });
        break;
      case 'bullet_list_close':
      case 'ordered_list_close':
        lists.pop();
        if (!lists.length) out.push('');
        break;
      case 'list_item_open':
        lists[lists.length - 1]!.n++;
        itemStart = true;
        break;
      case 'blockquote_open':
        quote++;
        break;
      case 'blockquote_close':
        quote--;
        break;
      case 'hr':
        block(['─'.repeat(Math.min(width, 40))]);
        break;
      case 'table_open':
        table = [];
        break;
      case 'tr_open':
        row = [];
        break;
      case 'th_open':
      case 'td_open':
        row.push(inline(tokens[i + 1], style));
        i += 2;
        break;
      case 'tr_close':
        table?.push(row);
        break;
      case 'table_close':
        if (table) block(layTable(table, style));
        table = null;
        break;
      case 'html_block':
        block(t.content.replace(/\n$/, '').split('\n'));
        break;
      default:
        break;
    }
  }
  return out.join('\n').replace(/\n{3,}/g, '\n\n').trimEnd() + '\n';
}

/** An inline token's text for a terminal: emphasis styled, code spans coloured, links as "text <address>". */
function inline(token: Token | undefined, style: (s: Style, text: string) => string): string {
  let out = '';
  const open: string[] = [];
  let href = '';
  let linkText = '';
  const add = (s: string): void => {
    if (href) linkText += s;
    else out += s;
  };
  for (const c of token?.children ?? []) {
    switch (c.type) {
      case 'text':
        add(applied(c.content, open, style));
        break;
      case 'code_inline':
        add(style('cyan', c.content));
        break;
      case 'softbreak':
        add(' ');
        break;
      case 'hardbreak':
        add('\n');
        break;
      case 'strong_open':
        open.push('bold');
        break;
      case 'em_open':
        open.push('italic');
        break;
      case 'strong_close':
      case 'em_close':
        open.pop();
        break;
      case 'link_open':
        href = String(c.attrGet('href') ?? '');
        linkText = '';
        break;
      case 'link_close': {
        const shown = stripVTControlCharacters(linkText);
        out += linkText + (href && href !== shown && `mailto:${shown}` !== href ? ` ${style('dim', `<${href}>`)}` : '');
        href = '';
        break;
      }
      case 'image':
        add(c.content);
        break;
      default:
        add(c.content);
    }
  }
  return out;
}

function applied(text: string, open: readonly string[], style: (s: Style, text: string) => string): string {
  return open.reduce((s, f) => style(f as Style, s), text);
}

/** Words of `text` in lines of at most `width` visible columns (a longer word gets a line of its own). */
function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  for (const para of text.split('\n')) {
    let line = '';
    let len = 0;
    for (const word of para.split(/ +/).filter(Boolean)) {
      const w = stripVTControlCharacters(word).length;
      if (len && len + 1 + w > width) {
        lines.push(line);
        line = '';
        len = 0;
      }
      line += (len ? ' ' : '') + word;
      len += (len ? 1 : 0) + w;
    }
    lines.push(line);
  }
  return lines;
}

/** Rows as columns padded to their widest cell; the header bold and ruled. */
function layTable(rows: string[][], style: (s: Style, text: string) => string): string[] {
  const cols = Math.max(0, ...rows.map((r) => r.length));
  const widths = Array.from({ length: cols }, (_, c) => Math.max(0, ...rows.map((r) => stripVTControlCharacters(r[c] ?? '').length)));
  const pad = (cell: string, c: number): string => cell + ' '.repeat(widths[c]! - stripVTControlCharacters(cell).length);
  return rows.flatMap((r, k) => {
    const line = r.map(pad).join('  ');
    return k === 0 ? [style('bold', line), widths.map((w) => '─'.repeat(w)).join('  ')] : [line];
  });
}
