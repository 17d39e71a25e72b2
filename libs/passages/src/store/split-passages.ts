import { fencedRegions, sentenceSpans } from '@orrery/language';

export interface SplitOptions {
  /** A chunk is closed once it reaches this many words (at a sentence boundary). */
  targetWords: number;
  /** Never exceed this many words unless one sentence alone is longer. */
  maxWords: number;
  /** A trailing chunk shorter than this is merged into the previous one. */
  minWords: number;
}

export const DEFAULT_SPLIT: SplitOptions = { targetWords: 150, maxWords: 250, minWords: 60 };

const wordCount = (s: string): number => (s.match(/\S+/g) ?? []).length;

/**
 * Split text into passage-sized chunks on paragraph and sentence boundaries. Chunks are made of whole
 * sentences (a long paragraph is cut between sentences; short paragraphs are joined with a blank line).
 * A fenced code block is one paragraph, never cut: longer than `maxWords`, it is a chunk of its own.
 */
export function splitIntoPassages(text: string, options: SplitOptions = DEFAULT_SPLIT): string[] {
  const chunks: string[] = [];
  // Paragraphs first: blank lines (or Markdown headings) outside code fences separate them.
  const fences = fencedRegions(text);
  let fence = 0;
  // Boundaries come in order, so one cursor over the fences answers each in constant time.
  const inFence = (at: number): boolean => {
    while (fence < fences.length && fences[fence]!.end <= at) fence++;
    return fence < fences.length && at > fences[fence]!.start;
  };
  const paragraphs: { start: number; end: number }[] = [];
  const re = /\n\s*\n|\n(?=#{1,6}\s)/g;
  let last = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    if (inFence(m.index)) continue;
    paragraphs.push({ start: last, end: m.index });
    last = m.index + m[0].length;
  }
  paragraphs.push({ start: last, end: text.length });

  let current: string[] = [];
  let currentWords = 0;
  const close = (): void => {
    if (current.length) chunks.push(current.join(' ').trim());
    current = [];
    currentWords = 0;
  };
  const add = (piece: string): void => {
    const w = wordCount(piece);
    if (currentWords > 0 && currentWords + w > options.maxWords) close();
    current.push(piece);
    currentWords += w;
    if (currentWords >= options.targetWords) close();
  };
  for (const p of paragraphs) {
    const para = text.slice(p.start, p.end).trim();
    if (!para) continue;
    const words = wordCount(para);
    if (isFenced(para)) {
      addVerbatim(para);
    } else if (words <= options.maxWords && currentWords + words <= options.maxWords) {
      // A whole paragraph fits; paragraphs below the target are joined with their neighbours.
      addVerbatim(para);
    } else {
      for (const s of sentenceSpans(para)) add(s.text);
    }
    if (currentWords >= options.minWords) close();
  }
  close();
  return mergeShortTail(chunks, options.minWords);

  function addVerbatim(para: string): void {
    if (current.length && currentWords + wordCount(para) > options.maxWords) close();
    // Joined paragraphs are separated by a newline pair so each chunk stays readable.
    if (current.length) current.push('\n\n' + para);
    else current.push(para);
    currentWords += wordCount(para);
  }
}

/** A paragraph that is one fenced code block. */
const isFenced = (para: string): boolean => /^(`{3,}|~{3,})/.test(para);

function mergeShortTail(chunks: string[], minWords: number): string[] {
  if (chunks.length >= 2 && wordCount(chunks[chunks.length - 1]!) < minWords) {
    const tail = chunks.pop()!;
    // Code keeps its own lines: a fence joined to a sentence's line would no longer be a fence.
    const code = isFenced(tail) || /(`{3,}|~{3,})$/.test(chunks[chunks.length - 1]!);
    chunks[chunks.length - 1] += (code ? '\n\n' : ' ') + tail;
  }
  return chunks.map((c) => c.replace(/ \n\n/g, '\n\n'));
}
