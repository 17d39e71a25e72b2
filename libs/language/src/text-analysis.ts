import winkNLP, { type ItsHelpers } from 'wink-nlp';
import model from 'wink-eng-lite-web-model';
import { lexiconTokens, lexiconValues, porterStem } from './lexicon-tokenizer';

/**
 * Linguistic helpers over wink-nlp: index terms (stop words removed, Porter2 stems) from the model's fixed lexicon
 * (`lexiconTokens`), sentences, and noun / proper-noun phrases for facet mining.
 */
// One pipeline for sentences and parts of speech: each loads a copy of the model (about 11 MB of heap and 0.2 s of
// CPU), and tagging the few passages a question quotes costs less than a second copy. Built on its first use: a process
// that only analyses index terms (an ingest) never builds it.
let nlp: ReturnType<typeof winkNLP> | undefined;
const tagger = (): ReturnType<typeof winkNLP> => (nlp ??= winkNLP(model, ['sbd', 'pos']));
// The same helpers every pipeline exposes (wink-nlp's its.js), without building one to reach them.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const its = require('wink-nlp/src/its.js') as ItsHelpers;

const stemCache = new Map<string, string>();
/**
 * Words the stem cache holds at most (started afresh when full): a large corpus's distinct words (identifiers, numbers,
 * misspellings) grow without end, and the store's thread that analyses an ingest runs in a bounded heap.
 */
export const STEM_CACHE_WORDS = 200_000;

/** Porter2 stem of one lowercase word (memoized: a corpus has far fewer distinct words than tokens). */
export function stemWord(word: string): string {
  let s = stemCache.get(word);
  if (s === undefined) {
    const values = lexiconValues(word);
    s = (values.length === 1 && porterStem(values[0]!)) || word;
    if (stemCache.size >= STEM_CACHE_WORDS) stemCache.clear();
    stemCache.set(word, s);
  }
  return s;
}

/** Words in the stem cache now (what its bound is checked against). */
export const stemCacheSize = (): number => stemCache.size;

/** A lowercase word as the index spells it: possessive and apostrophes dropped ("Hilary's" -> "hilary"). */
export function normalizeWord(normal: string): string {
  return normal.replace(/['’]s$/, '').replace(/['’]/g, '');
}

/**
 * Longer "words" are encoded blobs (base64 tokens, hashes) that no question asks for; as index keys they also break
 * PostgreSQL's btree row limit (2,704 bytes), which a 3,536-character token in the awscli docs hit.
 */
const MAX_TERM_CHARS = 64;

/** Turn one token into its index term, or null when it carries no content. */
function termOf(normal: string, type: string, stop: boolean): string | null {
  if (stop || normal.length > MAX_TERM_CHARS) return null;
  if (type === 'number') return /^[0-9][0-9.,]*$/.test(normal) ? normal.replace(/[.,]+$/, '') : null;
  if (type !== 'word') return null;
  const w = normalizeWord(normal);
  if (w.length < 2 && !/[0-9]/.test(w)) return null;
  if (/^[0-9]/.test(w)) return w;
  return stemWord(w);
}

/** Content terms of a text: lowercase, stop words dropped, stemmed. Used for both indexing and queries. */
export function analyzeTerms(text: string): string[] {
  const terms: string[] = [];
  for (const token of lexiconTokens(text)) {
    const t = termOf(token.normal, token.type, token.stop);
    if (t) terms.push(t);
  }
  return terms;
}

/** Distinct content terms of a text, in first-seen order. */
export function uniqueTerms(text: string): string[] {
  return [...new Set(analyzeTerms(text))];
}

export interface TextSpan {
  text: string;
  start: number;
  end: number;
}

/** A Markdown code fence: an opening line of 3+ backticks or tildes, up to a closing line of the same run (or the end). */
const FENCE = /^(`{3,}|~{3,})[^\n]*\n[\s\S]*?(?:\n\1[ \t]*(?=\n|$)|$(?![\s\S]))/gm;

/** Where a text holds fenced code blocks, in order: what lies inside is code, never cut or read as sentences. */
export function fencedRegions(text: string): { start: number; end: number }[] {
  if (!text.includes('```') && !text.includes('~~~')) return [];
  const out: { start: number; end: number }[] = [];
  FENCE.lastIndex = 0;
  for (let m = FENCE.exec(text); m; m = FENCE.exec(text)) {
    out.push({ start: m.index, end: m.index + m[0].length });
    if (m[0].length === 0) FENCE.lastIndex++;
  }
  return out;
}

/** Abbreviations no sentence ends with. */
const NEVER_FINAL = /(?:^|[\s(])(?:e\.g|i\.e|cf|vs|approx)\.$/i;

/**
 * Sentences of a text as verbatim spans (offsets into `text`), so a sentence can be quoted exactly.
 * wink-nlp finds the boundaries; each sentence is then located in the original string. A fenced code block is
 * one span, whole. A boundary with no space after it is inside a word ("Node.js", "README.md", "v1.2"), and one
 * after "e.g." is not a boundary: those sentences are joined again.
 */
export function sentenceSpans(text: string): TextSpan[] {
  const spans: TextSpan[] = [];
  let from = 0;
  for (const f of fencedRegions(text)) {
    spans.push(...proseSpans(text, from, f.start));
    spans.push({ text: text.slice(f.start, f.end), start: f.start, end: f.end });
    from = f.end;
  }
  spans.push(...proseSpans(text, from, text.length));
  if (spans.length === 0 && text.trim()) {
    const t = text.trim();
    const at = text.indexOf(t);
    spans.push({ text: t, start: at, end: at + t.length });
  }
  return spans;
}

/** Where prose breaks whatever the sentence: a blank line, a line that starts a list item, a table row's ends. */
const BREAK = /\n[ \t]*\n\s*|\n(?=[ \t]*(?:[-*+•]|\d{1,3}[.)])[ \t])|\n(?=[^\n]* \| )|\n(?<= \| [^\n]*\n)/g;

/** The sentences of `whole` between `from` and `to`, as spans of the whole text; paragraphs, list items and table rows are read apart. */
function proseSpans(whole: string, from: number, to: number): TextSpan[] {
  const out: TextSpan[] = [];
  const part = whole.slice(from, to);
  BREAK.lastIndex = 0;
  let at = 0;
  for (let m = BREAK.exec(part); ; m = BREAK.exec(part)) {
    const end = m ? m.index : part.length;
    out.push(...lineSpans(part.slice(at, end), from + at));
    if (!m) break;
    at = m.index + m[0].length;
  }
  return out;
}

/** wink-nlp's sentences of one run of prose (at `offset` in the whole text), joined again where wink cut inside a word or after "e.g.". */
function lineSpans(text: string, offset: number): TextSpan[] {
  if (!text.trim()) return [];
  const joined: TextSpan[] = [];
  for (const s of winkSpans(text)) {
    const prev = joined[joined.length - 1];
    const inWord = prev !== undefined && s.start === prev.end && prev.text.endsWith('.') && /[\p{L}\p{N}]/u.test(text[s.start] ?? '');
    if (prev && (inWord || NEVER_FINAL.test(prev.text))) {
      prev.end = s.end;
      prev.text = text.slice(prev.start, s.end);
    } else joined.push({ ...s });
  }
  return joined.map((s) => ({ text: s.text, start: s.start + offset, end: s.end + offset }));
}

function winkSpans(text: string): TextSpan[] {
  const found = tagger().readDoc(text).sentences().out() as string[];
  const spans: TextSpan[] = [];
  let cursor = 0;
  for (const raw of found) {
    const s = raw.trim();
    if (!s) continue;
    let at = text.indexOf(s, cursor);
    if (at < 0) {
      // wink may normalize inner spacing: fall back to locating the first word run.
      const head = s.slice(0, Math.min(20, s.length));
      at = text.indexOf(head, cursor);
      if (at < 0) continue;
      const next = found[found.indexOf(raw) + 1]?.trim().slice(0, 20);
      const nextAt = next ? text.indexOf(next, at + head.length) : -1;
      const end = nextAt > at ? nextAt : text.length;
      spans.push({ text: text.slice(at, end).trim(), start: at, end: at + text.slice(at, end).trimEnd().length });
      cursor = end;
      continue;
    }
    spans.push({ text: s, start: at, end: at + s.length });
    cursor = at + s.length;
  }
  if (spans.length === 0 && text.trim()) {
    const t = text.trim();
    const at = text.indexOf(t);
    spans.push({ text: t, start: at, end: at + t.length });
  }
  return spans;
}

export interface Phrase {
  /** Stemmed key, e.g. "big bend". */
  key: string;
  /** Surface form as written, e.g. "Big Bend". */
  surface: string;
  kind: 'proper' | 'noun';
}

/** A text's tokens as wink-nlp tags them: normal form, value as written, part of speech, stop-word flag, type. */
function taggedTokens(text: string): { normals: string[]; values: string[]; poss: string[]; stops: boolean[]; types: string[] } {
  const tokens = tagger().readDoc(text).tokens();
  return {
    normals: tokens.out(its.normal) as string[],
    values: tokens.out(its.value) as string[],
    poss: tokens.out(its.pos) as string[],
    stops: tokens.out(its.stopWordFlag) as boolean[],
    types: tokens.out(its.type) as string[],
  };
}

/**
 * Proper-noun runs ("Ron DeSantis", "Big Bend") and noun compounds ("storm surge", "vinyl sales")
 * of a text, found with wink-nlp's POS tags. Single proper nouns are phrases too.
 */
export function extractPhrases(text: string): Phrase[] {
  const { normals, values, poss, stops, types } = taggedTokens(text);
  const phrases: Phrase[] = [];
  const flush = (start: number, end: number, kind: Phrase['kind']): void => {
    const idx: number[] = [];
    for (let i = start; i < end; i++) if (!stops[i] && types[i] === 'word') idx.push(i);
    if (idx.length === 0) return;
    if (kind === 'noun' && idx.length < 2) return;
    const key = idx
      .map((i) => termOf(normals[i]!, types[i]!, false))
      .filter((t): t is string => !!t)
      .join(' ');
    if (!key) return;
    phrases.push({ key, surface: idx.map((i) => values[i]).join(' '), kind });
  };
  let i = 0;
  while (i < poss.length) {
    if (poss[i] === 'PROPN') {
      let j = i;
      while (j < poss.length && poss[j] === 'PROPN') j++;
      flush(i, j, 'proper');
      i = j;
    } else if (poss[i] === 'ADJ' || poss[i] === 'NOUN') {
      let j = i;
      while (j < poss.length && poss[j] === 'ADJ') j++;
      const nounStart = j;
      while (j < poss.length && poss[j] === 'NOUN') j++;
      if (j > nounStart) flush(i, j, 'noun');
      i = Math.max(j, i + 1);
    } else i++;
  }
  return phrases;
}

/**
 * Nouns and noun phrases of a text, as written, for titles and aspects: each noun or proper noun alone, and
 * runs of adjectives and nouns ending in a noun ("steamship companies", "illegal immigration"), at most two
 * words of content; a hyphenated compound is one word ("self-government"). Stop words and numbers break a run.
 */
export function nounPhrases(text: string): { surface: string; key: string }[] {
  const units = compoundUnits(text);
  const out: { surface: string; key: string }[] = [];
  for (let i = 0; i < units.length; i++) {
    const u = units[i]!;
    if (!u.key) continue;
    const next = units[i + 1];
    // A compound before a noun modifies it ("internal-revenue taxation"): the phrase names, the compound alone does not.
    if (u.noun && !(u.compound && next?.noun)) out.push({ surface: u.surface, key: u.key });
    if (next?.key && next.noun && (u.noun || u.modifier)) out.push({ surface: `${u.surface} ${next.surface}`, key: `${u.key} ${next.key}` });
  }
  return out;
}

interface WordUnit {
  surface: string;
  /** Its index terms, space-separated; empty for a stop word, a number or punctuation. */
  key: string;
  noun: boolean;
  /** Can come before a noun in a phrase: an adjective, or a hyphenated compound ("interest-bearing debt"). */
  modifier: boolean;
  /** Hyphenated ("interest-bearing"). */
  compound: boolean;
}

/** Number words a compound may start with, though they are stop words ("fourth-class", "eight-hour"). */
const NUMBER_WORD = /^(one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|forty|fifty|hundred|first|second|third|fourth|fifth)$/i;

/**
 * A text's tokens, with each hyphenated compound written without spaces ("self-government", "wage-earners") as one
 * word: the tagger splits them, and their parts alone ("Self", "Class post") name nothing. A compound's key is its
 * index terms, so a quote that says it holds every stem of it.
 */
function compoundUnits(text: string): WordUnit[] {
  const { normals, values, poss, stops, types } = taggedTokens(text);
  const at = tokenStarts(text, values);
  const joined = (a: number, b: number): boolean => at[a]! >= 0 && at[a]! + values[a]!.length === at[b];
  // Every part a content word or a number: "corporations-a proposition" is a dash typed as a hyphen, not a compound.
  const isPart = (i: number): boolean => i < values.length && ((types[i] === 'word' && values[i]!.length > 1 && (!stops[i] || NUMBER_WORD.test(values[i]!))) || types[i] === 'number');
  const isNoun = (i: number): boolean => poss[i] === 'NOUN' || poss[i] === 'PROPN';
  const units: WordUnit[] = [];
  for (let i = 0; i < values.length; i++) {
    let j = i;
    while (isPart(j) && values[j + 1] === '-' && isPart(j + 2) && joined(j, j + 1) && joined(j + 1, j + 2)) j += 2;
    if (j > i) {
      const surface = values.slice(i, j + 1).join('');
      units.push({ surface, key: analyzeTerms(surface).join(' '), noun: isNoun(j), modifier: true, compound: true });
      i = j;
      continue;
    }
    const key = types[i] === 'word' && !stops[i] ? termOf(normals[i]!, types[i]!, false) : null;
    units.push({ surface: values[i]!, key: key ?? '', noun: isNoun(i), modifier: poss[i] === 'ADJ', compound: false });
  }
  return units;
}

/** Each word token of a text with its part of speech (wink-nlp's Universal tags) and where it is. */
export function partsOfSpeech(text: string): { start: number; end: number; pos: string }[] {
  const tokens = tagger().readDoc(text).tokens();
  const values = tokens.out(its.value) as string[];
  const poss = tokens.out(its.pos) as string[];
  const at = tokenStarts(text, values);
  return values.flatMap((v, i) => (at[i]! < 0 ? [] : [{ start: at[i]!, end: at[i]! + v.length, pos: poss[i]! }]));
}

/** Where each token starts in the text, read in order (-1 for one the tagger rewrote). */
function tokenStarts(text: string, values: readonly string[]): number[] {
  let cursor = 0;
  return values.map((v) => {
    const at = text.indexOf(v, cursor);
    if (at >= 0) cursor = at + v.length;
    return at;
  });
}
