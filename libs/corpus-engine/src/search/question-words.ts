import type { CorpusVocabulary } from '@orrery/passages';
import type { DocumentStructure } from '../index/documents';
import { partsOfSpeech } from '@orrery/language';

/**
 * What a question about a dated, authored corpus names: the authors it asks about (as the ones who speak,
 * not as the subject), and the words of its subject ("the income tax"), with the question's frame, the
 * corpus's own name for its documents, its years and its ordinals taken out.
 */
export interface QuestionWords {
  /** Authors the question restricts to ("did Abraham Lincoln deliver", "Reagan's first"). */
  authors: string[];
  /** The subject's words as written, in order ("unconditional", "war", "poverty"). */
  words: string[];
  /** Per subject word, the question words between it and the one before ("unconditional war on poverty": [], [], ["on"]). */
  links: string[][];
  /** The subject as written in the question, from its first word to its last ("unconditional war on poverty"). */
  phrase: string;
  /** The subject is a name: its first and last words capitalized, in a question not capitalized throughout ("the United Nations"). */
  name: boolean;
}

/** Words that frame a question about documents rather than name its subject. */
const FRAME = new Set(
  (
    'who whom whose when where which what how many much often did does do is are was were has have had be been being ' +
    'in on at of the a an to for by from with about any ever his her their its this that these those there here ' +
    'first last earliest latest final most recent recently initially originally time times year years date decade century ' +
    'mention mentioned mentions mentioning talk talked talks talking speak speaks spoke spoken say said says discuss discussed ' +
    'refer referred describe described declare declared call called calls propose proposed announce announced warn warned ' +
    'use used deliver delivered delivers give gave given write wrote written address addressed addresses speech speeches message messages annual ' +
    'and or not no yes one ones him them they he she it people person president presidents ' +
    'phrase phrases word words term terms expression often frequently more than other others ' +
    // Verbs of bringing something up, sending or appearing: how a question says "mention", never its subject.
    'come comes came coming up arise arose arisen appear appeared appears occur occurred occurs show shown showed ' +
    'send sent sends submit submitted transmit transmitted bring brought brings raise raised raises reference referenced ' +
    'references cite cited touch touched feature featured saw see seen usage mentioning speaking talking name named ' +
    // How a request is put: "Tell me", "Can you tell me", "Name the".
    'tell me please can could you know give identify'
  ).split(' '),
);

/**
 * "the issue of climate change", "the matter of polio": a noun that only frames what follows "of" is how the
 * question asks, not its subject.
 */
const FRAMING_NOUN = /\b(?:the\s+)?(?:issue|subject|matter|topic|question|problem|idea|notion|concept)s?\s+of\b/giu;

/** Parts of speech that do not name a subject. */
const NOT_SUBJECT = new Set(['VERB', 'AUX', 'ADV', 'PART', 'ADP', 'DET', 'PRON', 'SCONJ', 'CCONJ', 'INTJ']);

/** Particles that belong to a surname ("Van Buren", "Mc Kinley"). */
const PARTICLE = /^(mc|mac|van|von|de|du|la|le|o')$/i;

interface Span {
  start: number;
  end: number;
}

interface Word extends Span {
  text: string;
}

const wordsOf = (text: string): Word[] => [...text.matchAll(/[\p{L}\p{N}][\p{L}\p{N}'’.-]*[\p{L}\p{N}]|[\p{L}\p{N}]/gu)].map((m) => ({ text: m[0], start: m.index, end: m.index + m[0].length }));

export const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A name's surname as a pattern: its last word, with a particle before it ("Mc ?Kinley"). */
function surnamePattern(name: string): string {
  const parts = name.replace(/,?\s+(Jr|Sr|II|III)\.?$/i, '').split(/\s+/);
  const last = escapeRegExp(parts[parts.length - 1] ?? name);
  const before = parts[parts.length - 2];
  return before && PARTICLE.test(before) ? `(?:${escapeRegExp(before)}\\s?)?${last}` : last;
}

/**
 * The authors a question restricts to. A surname (capitalized, as names are written) names an author who
 * speaks unless it is the subject: after "of", "about", a verb of mentioning or an article ("spoke of the
 * Monroe Doctrine", "mention Lincoln"), or before a capitalized word that is not part of the name ("Monroe
 * Doctrine"). Of several authors with the surname, those whose given names the question also writes win;
 * without one, all stay ("Roosevelt": both). For a question that asks who (the answer is an author), only
 * a possessive restricts ("Which of Lincoln's addresses").
 */
function authorSpans(text: string, structure: DocumentStructure, asksWho: boolean): { authors: string[]; spans: Span[] } {
  const found: { author: string; score: number; span: Span }[] = [];
  for (const author of structure.authors) {
    const re = new RegExp(`(^|[^\\p{L}])(${surnamePattern(author)})(['’]s)?(?![\\p{L}])`, 'gu');
    for (const m of text.matchAll(re)) {
      const start = m.index + m[1]!.length;
      const end = start + m[2]!.length + (m[3]?.length ?? 0);
      const possessive = !!m[3];
      // Given names and initials written just before the surname widen the span and raise the score.
      const given = author.split(/\s+/).slice(0, -1);
      let from = start;
      let score = 1;
      for (let k = given.length - 1; k >= 0; k--) {
        const g = escapeRegExp(given[k]!.replace(/\.$/, ''));
        const before = new RegExp(`(^|[^\\p{L}])${g}\\.?\\s+$`, 'u').exec(text.slice(0, from));
        if (!before) continue;
        from = before.index + before[1]!.length;
        score++;
      }
      const head = text.slice(0, from).trimEnd();
      const next = text.slice(end).trimStart();
      const followedByName = !possessive && /^\p{Lu}/u.test(next);
      const subject = /\b(of|about|on|the|a|an|mention|mentioned|mentions|mentioning|to|with|against|toward|towards|for|after|before)$/i.test(head);
      const speaks = possessive || (!asksWho && !followedByName && !subject);
      if (speaks) found.push({ author, score, span: { start: from, end } });
    }
  }
  // Per mention (overlapping spans are one mention), the authors with the best score.
  found.sort((a, b) => a.span.start - b.span.start || b.score - a.score);
  const authors = new Set<string>();
  const spans: Span[] = [];
  for (let i = 0; i < found.length; ) {
    let j = i;
    let { start, end } = found[i]!.span;
    while (j + 1 < found.length && found[j + 1]!.span.start < end) {
      j++;
      end = Math.max(end, found[j]!.span.end);
      start = Math.min(start, found[j]!.span.start);
    }
    const group = found.slice(i, j + 1);
    const best = Math.max(...group.map((g) => g.score));
    for (const g of group) if (g.score === best) authors.add(g.author);
    spans.push({ start, end });
    i = j + 1;
  }
  return { authors: [...authors], spans };
}

/** Short names ("FDR") written out as the titles write them. */
export function expandAuthorAliases(question: string, vocabulary: CorpusVocabulary): string {
  let text = question;
  for (const [alias, name] of Object.entries(vocabulary.authorAliases)) text = text.replace(new RegExp(`\\b${escapeRegExp(alias)}\\b`, 'g'), name);
  return text;
}

/** Where the question names its documents ("a State of the Union address", "annual messages"). */
function documentSpans(question: string, vocabulary: CorpusVocabulary): Span[] {
  const names = [vocabulary.documents, vocabulary.document, ...vocabulary.documentAliases].filter(Boolean).sort((a, b) => b.length - a.length);
  const spans: Span[] = [];
  for (const n of names) {
    const re = new RegExp(`\\b${escapeRegExp(n).replace(/\\ /g, '\\s+')}(e?s)?\\b`, 'gi');
    for (const m of question.matchAll(re)) spans.push({ start: m.index, end: m.index + m[0].length });
  }
  return spans;
}

/** Where the question names years ("in 1862", "the 1930s", "the nineteenth century"). */
function yearSpans(question: string): Span[] {
  const re = /\b(1[5-9][0-9]{2}|20[0-9]{2})(['’]?s)?\b|\b(sixteenth|seventeenth|eighteenth|nineteenth|twentieth|twenty[- ]first|[0-9]{2}(st|nd|rd|th))\s+century\b/gi;
  return [...question.matchAll(re)].map((m) => ({ start: m.index, end: m.index + m[0].length }));
}

/** The question's words, read against the corpus's authors and vocabulary (`question` has its aliases expanded). */
export function questionWords(question: string, structure: DocumentStructure, vocabulary: CorpusVocabulary, asksWho: boolean): QuestionWords {
  const { authors, spans } = authorSpans(question, structure, asksWho);
  const framing = [...question.matchAll(FRAMING_NOUN)].map((m) => ({ start: m.index, end: m.index + m[0].length }));
  const out = [...spans, ...documentSpans(question, vocabulary), ...yearSpans(question), ...framing];
  const frame = new Set([...FRAME, vocabulary.author.toLowerCase(), vocabulary.authors.toLowerCase()]);
  const all = wordsOf(question);
  // A quoted phrase is the subject as written ("Which president first said “a new covenant”?").
  const quoted = /[“"‘]([^”"’]{3,80})[”"’]/u.exec(question);
  if (quoted) {
    const inner = wordsOf(quoted[1]!).map((w) => ({ ...w, start: w.start + quoted.index + 1, end: w.end + quoted.index + 1 }));
    if (inner.length) return { authors, words: inner.map((w) => w.text.replace(/['’]s$/, '')), links: inner.map(() => []), phrase: quoted[1]!.trim(), name: isName(inner, all) };
  }
  let kept = all.map((w, i) => ({ w, i })).filter(({ w }) => !out.some((s) => w.start < s.end && w.end > s.start) && !frame.has(w.text.toLowerCase().replace(/['’]s$/, '')));
  // Verbs, adverbs and particles the frame list does not know ("first come up", "was first used") are how the
  // question asks, not what it asks about: the subject keeps its nouns, names, adjectives and numbers.
  const pos = partsOfSpeech(question);
  const tagOf = (w: Word): string => pos.find((p) => p.start <= w.start && p.end > w.start)?.pos ?? 'X';
  const content = kept.filter(({ w }) => !NOT_SUBJECT.has(tagOf(w)));
  if (content.length && content.length < kept.length) kept = content;
  const phrase = kept.length ? question.slice(kept[0]!.w.start, kept[kept.length - 1]!.w.end) : '';
  const links = kept.map((k, j) => (j === 0 ? [] : all.slice(kept[j - 1]!.i + 1, k.i).map((w) => w.text.toLowerCase())));
  return { authors, words: kept.map(({ w }) => w.text.replace(/['’]s$/, '')), links, phrase, name: isName(kept.map(({ w }) => w), all) };
}

/** Two or more words, the first and the last capitalized, where the question also writes words in lower case. */
function isName(subject: readonly Word[], all: readonly Word[]): boolean {
  const capital = (w: Word | undefined): boolean => !!w && /^\p{Lu}/u.test(w.text);
  return subject.length > 1 && capital(subject[0]) && capital(subject[subject.length - 1]) && all.some((w) => /^\p{Ll}/u.test(w.text));
}
