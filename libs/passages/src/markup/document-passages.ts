import { splitIntoPassages } from '../store/split-passages';
import { htmlBlocks } from './html-blocks';
import { markdownBlocks } from './markdown-blocks';
import { sectionTitle } from './section-title';
import { fencedCode, type TextBlock } from './text-block';

export interface DocumentPassage {
  title: string;
  text: string;
}

const MARKDOWN = /\.(md|markdown)$/i;
const HTML = /\.(html?|xhtml)$/i;

/** Headings below a document's own title that name a section, at most this deep ("Usage > Options"). */
const TITLE_DEPTH = 2;

/**
 * One document's passages. Markdown and HTML are parsed: each section (the text under a heading) is split on its
 * own and its passages are titled by file and heading ("README.md > Installation"); code stays a fenced block,
 * never cut. Plain text is split as it is, titled by its first Markdown-style heading or its file name.
 */
export function documentPassages(path: string, text: string): DocumentPassage[] {
  if (MARKDOWN.test(path)) return sectionPassages(path, markdownBlocks(text));
  if (HTML.test(path)) return sectionPassages(path, htmlBlocks(text));
  const title = plainTitle(text, path);
  return splitIntoPassages(text).map((chunk) => ({ title, text: chunk }));
}

function sectionPassages(path: string, blocks: readonly TextBlock[]): DocumentPassage[] {
  const out: DocumentPassage[] = [];
  const headings: { level: number; text: string }[] = [];
  let body: string[] = [];
  const close = (): void => {
    const title = sectionTitle(path, headingTrail(headings));
    for (const chunk of splitIntoPassages(body.join('\n\n'))) out.push({ title, text: chunk });
    body = [];
  };
  for (const b of blocks) {
    if (b.kind === 'heading') {
      close();
      while (headings.length && headings[headings.length - 1]!.level >= b.level) headings.pop();
      headings.push({ level: b.level, text: b.text });
    } else body.push(b.kind === 'code' ? fencedCode(b.lang, b.text) : b.text);
  }
  close();
  return out;
}

/** The headings a section's title names: its own and its parent's, below the document's title when there are more. */
function headingTrail(headings: readonly { level: number; text: string }[]): string | undefined {
  const trail = headings.length > 1 && headings[0]!.level === 1 ? headings.slice(1) : headings;
  return trail.length ? trail.slice(-TITLE_DEPTH).map((h) => h.text).join(' > ') : undefined;
}

/** A plain-text document's title: its first Markdown-style heading, else the file name without extension. */
function plainTitle(text: string, path: string): string {
  const heading = /^#{1,6}\s+(.+)$/m.exec(text);
  if (heading) return heading[1]!.trim();
  return path.replace(/\.[^.]+$/, '').split('/').pop()!;
}
