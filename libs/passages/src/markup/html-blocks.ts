import { Parser } from 'htmlparser2';
import { codeSpan, oneLine, type TextBlock } from './text-block';

/** Elements whose content is not text a reader sees (or is the page's chrome, not its content). */
const SKIPPED = new Set(['script', 'style', 'noscript', 'template', 'head', 'svg', 'math', 'iframe', 'object', 'canvas', 'nav', 'select', 'button']);
/** Elements that end the text before them and start a block of their own. */
const BLOCK = new Set([
  'p', 'div', 'section', 'article', 'header', 'footer', 'main', 'aside', 'blockquote', 'figure', 'figcaption', 'details', 'summary',
  'dl', 'dt', 'dd', 'hr', 'address', 'form', 'fieldset', 'caption', 'center', 'body', 'html',
]);
const LIST = new Set(['ul', 'ol', 'menu']);
const HEADING = /^h([1-6])$/;
const LANGUAGE = /(?:^|\s)(?:language|lang)-([\w+#.-]+)/;

/**
 * An HTML document's (or fragment's) blocks, parsed by htmlparser2: headings, paragraphs, list items and table
 * rows as text (links as their text, entities decoded, images dropped), `<pre>` kept as code; scripts, styles
 * and navigation left out.
 */
export function htmlBlocks(html: string): TextBlock[] {
  const blocks: TextBlock[] = [];
  let text = '';
  let heading = 0;
  let skip = 0;
  let pre = 0;
  let code = '';
  let lang = '';
  // Lines of the list or table being read, one block when the outermost one closes.
  let lists = 0;
  let tables = 0;
  let group: string[] = [];
  let cells: string[] | null = null;
  const listMarkers: number[] = [];

  const flushText = (): void => {
    const line = oneLine(text);
    text = '';
    // An item marker alone is no text.
    if (!line || /^(-|\d+\.)$/.test(line)) return;
    if (heading) blocks.push({ kind: 'heading', level: heading, text: line });
    else if (cells) cells.push(line);
    else if (lists || tables) group.push(line);
    else blocks.push({ kind: 'text', text: line });
  };
  const flushGroup = (): void => {
    flushText();
    const joined = group.join('\n').trim();
    if (joined) blocks.push({ kind: 'text', text: joined });
    group = [];
  };

  const parser = new Parser(
    {
      onopentag(name, attribs) {
        if (skip || SKIPPED.has(name)) {
          if (SKIPPED.has(name)) skip++;
          return;
        }
        if (pre) {
          if (name === 'code' && !lang) lang = LANGUAGE.exec(attribs.class ?? '')?.[1] ?? '';
          if (name === 'br') code += '\n';
          return;
        }
        const h = HEADING.exec(name);
        if (h) {
          flushText();
          heading = Number(h[1]);
        } else if (name === 'pre') {
          flushText();
          pre = 1;
          code = '';
          lang = LANGUAGE.exec(attribs.class ?? '')?.[1] ?? '';
        } else if (LIST.has(name)) {
          flushText();
          lists++;
          listMarkers.push(name === 'ol' ? Number(attribs.start ?? 1) : 0);
        } else if (name === 'li') {
          flushText();
          const n = listMarkers[listMarkers.length - 1] ?? 0;
          text = `${'  '.repeat(Math.max(0, lists - 1))}${n ? `${n}. ` : '- '}`;
          if (n) listMarkers[listMarkers.length - 1] = n + 1;
        } else if (name === 'table') {
          flushText();
          tables++;
        } else if (name === 'tr') {
          flushText();
          cells = [];
        } else if (name === 'td' || name === 'th') {
          flushText();
        } else if (name === 'code') {
          text += '\u0000';
        } else if (name === 'br') {
          text += ' ';
        } else if (BLOCK.has(name)) flushText();
      },
      ontext(data) {
        if (skip) return;
        if (pre) code += data;
        else text += data;
      },
      onclosetag(name) {
        if (SKIPPED.has(name)) {
          if (skip) skip--;
          return;
        }
        if (skip) return;
        if (pre) {
          if (name !== 'pre') return;
          pre = 0;
          const body = code.replace(/^\n/, '').replace(/\s+$/, '');
          if (body.trim()) blocks.push({ kind: 'code', lang, text: body });
          code = '';
          return;
        }
        if (HEADING.test(name)) {
          flushText();
          heading = 0;
        } else if (name === 'code') {
          // The code span's text, marked where it opened, becomes a span of its own.
          const at = text.lastIndexOf('\u0000');
          if (at >= 0) text = text.slice(0, at) + (text.slice(at + 1).trim() ? codeSpan(oneLine(text.slice(at + 1))) : '');
        } else if (name === 'td' || name === 'th') {
          flushText();
        } else if (name === 'tr') {
          flushText();
          const row = cells ?? [];
          cells = null;
          if (row.length) group.push(row.join(' | '));
        } else if (LIST.has(name)) {
          flushText();
          lists = Math.max(0, lists - 1);
          listMarkers.pop();
          if (!lists && !tables) flushGroup();
        } else if (name === 'li') {
          flushText();
        } else if (name === 'table') {
          flushText();
          tables = Math.max(0, tables - 1);
          if (!lists && !tables) flushGroup();
        } else if (BLOCK.has(name)) flushText();
      },
    },
    { decodeEntities: true },
  );
  parser.write(html);
  parser.end();
  if (pre && code.trim()) blocks.push({ kind: 'code', lang, text: code.replace(/\s+$/, '') });
  else flushText();
  flushGroup();
  return blocks.map((b) => (b.kind === 'code' ? b : { ...b, text: b.text.replace(/\u0000/g, '') }));
}
