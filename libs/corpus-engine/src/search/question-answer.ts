import { type QuestionForm, questionForm, type YearRange, analyzeTerms, sentenceSpans } from '@orrery/language';
import type { CorpusIndex } from '../index/corpus-index';
import type { CorpusVocabulary } from '@orrery/passages';
import { documentStructure, type DocumentStructure } from '../index/documents';
import { escapeRegExp, expandAuthorAliases, questionWords } from './question-words';
import { selectQuote } from './quote-selection';

/** One passage behind an answer, with the sentence quoted from it and the claim that sentence supports. */
export interface AnswerEvidence {
  id: string;
  quote: string;
  claim: string;
}

export interface CorpusAnswer {
  /** False when the corpus does not hold the answer (the evidence is then the closest it has). */
  found: boolean;
  /** The answer in a few sentences: the answer itself first, the document that shows it, a quote from it. */
  text: string;
  /** The passage that shows the answer first, then the next ones (or the closest, when not found). */
  evidence: AnswerEvidence[];
  signals: Record<string, string | number | boolean>;
}

/** How a passage matches the question's subject: its words as a phrase, all its index terms, or part of them. */
type Tier = 'phrase' | 'terms' | 'partial';

interface Match {
  id: string;
  doc: string;
  year: number;
  score: number;
  /** Corpus order, for documents of one year. */
  order: number;
}

/**
 * Answers a question with one expected answer (see `questionForm`) from a dated corpus's documents: their
 * years and authors (the titles' metadata) answer "first", "last", "in 1862", "who" and "how many"; the
 * subject's words, found as written in the passages (plural and possessive forms, "Viet-Nam" for
 * "Vietnam"), say which documents speak of it. "First" means the earliest document that does, not the
 * most relevant passage. Null when the question has no single answer or the corpus no dated documents.
 */
export function answerQuestion(index: CorpusIndex, vocabulary: CorpusVocabulary, question: string, limit = 5): CorpusAnswer | null {
  const form = withAuthorNoun(questionForm(question), question, vocabulary);
  const structure = documentStructure(index);
  if (form.expects === null || !structure.dated) return null;
  const text = expandAuthorAliases(question, vocabulary);
  const words = questionWords(text, structure, vocabulary, form.expects === 'person');
  const authors = new Set(words.authors);
  const inScope = (doc: string): boolean => {
    const y = structure.yearOf(doc);
    if (y === null || (form.years && (y < form.years.from || y > form.years.to))) return false;
    return authors.size === 0 || authors.has(structure.authorOf(doc) ?? '');
  };
  const docs = structure.documentKeys().filter(inScope);
  const ctx: Context = { index, structure, vocabulary, form, authors: [...authors], docs, limit };
  const subject = words.words.length ? { words: words.words, links: words.links, phrase: words.phrase, name: words.name, terms: [...new Set(analyzeTerms(words.words.join(' ')))] } : null;
  const answer = subject && subject.terms.length ? subjectAnswer(ctx, subject) : documentAnswer(ctx);
  return {
    ...answer,
    signals: {
      expects: form.expects,
      ordinal: form.ordinal ?? 'none',
      years: form.years ? `${form.years.from}-${form.years.to}` : 'none',
      authors: [...authors].join('; ') || 'none',
      subject: subject?.phrase ?? 'none',
      documentsInScope: docs.length,
      found: answer.found,
      ...answer.signals,
    },
  };
}

/** "Which governor …" asks for a person when the corpus's authors are governors. */
function withAuthorNoun(form: QuestionForm, question: string, v: CorpusVocabulary): QuestionForm {
  if (form.expects !== 'fact') return form;
  const noun = new RegExp(`^(?:[^,?]{1,60},\\s*)?(which|what)\\s+(${escapeRegExp(v.author)}|${escapeRegExp(v.authors)})\\b`, 'i');
  return noun.test(question.trim()) ? { ...form, expects: 'person', rule: 'which-author' } : form;
}

interface Context {
  index: CorpusIndex;
  structure: DocumentStructure;
  vocabulary: CorpusVocabulary;
  form: QuestionForm;
  authors: string[];
  docs: string[];
  limit: number;
}

interface Subject {
  words: string[];
  links: string[][];
  phrase: string;
  name: boolean;
  terms: string[];
}

// ---------------------------------------------------------------- answers from the documents' metadata

/** A question about the documents themselves ("Who delivered the 1862 address?", "How many did Lincoln give?"). */
function documentAnswer(c: Context): Omit<CorpusAnswer, 'signals'> & { signals: Record<string, string | number | boolean> } {
  const { form, vocabulary: v } = c;
  const docs = byYear(c, c.docs);
  if (docs.length === 0) return nothingInScope(c);
  const ordered = form.ordinal === 'latest' ? [...docs].reverse() : docs;
  const pick = ordered[0]!;
  const all = docs.map((d) => year(c, d));
  const first = form.ordinal === 'latest' ? 'last' : 'first';
  const scope = scopeText(c);
  let lead: string;
  if (form.expects === 'count') lead = `${docs.length}: the corpus holds ${count(docs.length, v)}${scope} (${listYears(all)}).`;
  else if (form.expects === 'yes-no') lead = `Yes: ${possessive(c, pick)} ${v.document} of ${year(c, pick)} is in the corpus${docs.length > 1 ? `, one of ${docs.length}${scope}` : ''}.`;
  else if (form.ordinal && c.authors.length) lead = `${year(c, pick)}: ${possessive(c, pick)} ${first} ${v.document} in the corpus is that of ${year(c, pick)}.`;
  else if (form.ordinal) lead = `${who(c, pick)}: the ${first} ${v.document} in the corpus is ${possessive(c, pick)}, of ${year(c, pick)}.`;
  else if (docs.length === 1) lead = form.expects === 'time' ? `${year(c, pick)}: ${possessive(c, pick)} ${v.document} in the corpus is that of ${year(c, pick)}.` : `${who(c, pick)}: the ${v.document} of ${year(c, pick)} is ${possessive(c, pick)}.`;
  else if (form.expects === 'person') lead = `${listAnd(docs.map((d) => `${who(c, d)} (${year(c, d)})`))}: the corpus holds ${count(docs.length, v)}${scope}.`;
  else lead = `${listYears(all)}: the corpus holds ${count(docs.length, v)}${scope}.`;
  const shown = ordered.slice(0, c.limit);
  const evidence = shown.map((d) => opening(c, d));
  const text = `${lead} ${said(c, pick, evidence[0]!.quote)}`;
  return { found: true, text, evidence, signals: { documents: docs.length } };
}

/** The years asked about (or the author) have no document: say so, with the documents nearest in time. */
function nothingInScope(c: Context): Omit<CorpusAnswer, 'signals'> & { signals: Record<string, string | number | boolean> } {
  const { form, vocabulary: v, structure } = c;
  const pool = structure.documentKeys().filter((d) => c.authors.length === 0 || c.authors.includes(structure.authorOf(d) ?? ''));
  const range: YearRange = form.years ?? { from: 0, to: 9999 };
  const distance = (d: string): number => {
    const y = year(c, d);
    return y < range.from ? range.from - y : y > range.to ? y - range.to : 0;
  };
  const before = byYear(c, pool.filter((d) => year(c, d) < range.from)).pop();
  const after = byYear(c, pool.filter((d) => year(c, d) > range.to))[0];
  const nearest = [before, after].filter((d): d is string => d !== undefined).sort((a, b) => distance(a) - distance(b) || year(c, a) - year(c, b));
  const no = form.expects === 'yes-no' ? 'No: the' : 'The';
  const lead = `${no} corpus holds no ${v.document}${scopeText(c)}.`;
  const near = nearest.length ? ` The nearest ${nearest.length > 1 ? 'are' : 'is'} ${listAnd(byYear(c, nearest).map((d) => `${possessive(c, d)} of ${year(c, d)}`))}.` : '';
  return { found: false, text: lead + near, evidence: byYear(c, nearest).map((d) => opening(c, d)), signals: { documents: 0 } };
}

// ---------------------------------------------------------------- answers from what the documents say

/** A question about a subject ("When did a president first mention the income tax?"). */
function subjectAnswer(c: Context, subject: Subject): Omit<CorpusAnswer, 'signals'> & { signals: Record<string, string | number | boolean> } {
  const { form, vocabulary: v } = c;
  if (c.docs.length === 0) return nothingInScope(c);
  const { tier, matches } = matchesOf(c, subject);
  const quoted = `“${subject.phrase}”`;
  const scope = scopeText(c);
  if (tier === 'partial') {
    const no = form.expects === 'yes-no' ? 'No: no' : 'The corpus does not answer this: no';
    const lead = `${no} ${v.document}${scope} in the corpus mentions ${quoted}.`;
    // Outside what the question restricts to, a document may say it: the earliest one is the closest evidence.
    const all = c.structure.documentKeys();
    const wider = c.docs.length < all.length ? matchesOf({ ...c, docs: [...all] }, subject) : null;
    if (wider && wider.tier !== 'partial') {
      const earliest = onePerDocument(wider.matches).slice(0, c.limit);
      const evidence = earliest.map((m) => evidenceOf(c, m, subject));
      const near = ` The earliest that does is ${possessive(c, earliest[0]!.doc)} of ${earliest[0]!.year}: “${evidence[0]!.quote}”`;
      return { found: false, text: lead + near, evidence, signals: { tier, documents: 0, widerDocuments: new Set(wider.matches.map((m) => m.doc)).size } };
    }
    const pool = matches.length ? matches : (wider?.matches ?? []);
    const closest = [...pool].sort((a, b) => b.score - a.score || a.year - b.year).slice(0, c.limit);
    if (closest.length === 0) return { found: false, text: lead, evidence: byYear(c, c.docs).slice(0, 1).map((d) => opening(c, d)), signals: { tier, documents: 0 } };
    const evidence = closest.map((m) => evidenceOf(c, m, subject));
    const near = ` The closest evidence is ${possessive(c, closest[0]!.doc)} of ${closest[0]!.year}: “${evidence[0]!.quote}”`;
    return { found: false, text: lead + near, evidence, signals: { tier, documents: 0 } };
  }
  const chronological = onePerDocument(matches);
  const ordered =
    form.ordinal === 'latest'
      ? [...chronological].reverse()
      : form.ordinal === null && form.expects === 'fact'
        ? [...chronological].sort((a, b) => b.score - a.score || a.year - b.year)
        : chronological;
  if (form.most && (form.expects === 'person' || form.expects === 'document' || form.expects === 'time')) return mostAnswer(c, subject, matches, chronological);
  const pick = ordered[0]!;
  const n = chronological.length;
  const first = form.ordinal === 'latest' ? 'last' : 'first';
  const earliest = chronological[0]!;
  const latest = chronological[n - 1]!;
  const span = n > 1 ? ` In all, ${count(n, v)}${scope} mention it, from ${earliest.year} to ${latest.year}.` : '';
  const evidence = ordered.slice(0, c.limit).map((m) => evidenceOf(c, m, subject));
  const quote = evidence[0]!.quote;
  let lead: string;
  if (form.expects === 'count') lead = `${n}: ${n === 1 ? `only ${possessive(c, pick.doc)} ${v.document} of ${pick.year} mentions ${quoted}` : `${count(n, v)}${scope} mention ${quoted}, from ${who(c, earliest.doc)} in ${earliest.year} to ${who(c, latest.doc)} in ${latest.year}`}.`;
  else if (form.expects === 'yes-no') lead = `Yes: ${who(c, pick.doc)} mentions ${quoted} in the ${v.document} of ${pick.year}${n > 1 ? `, the first of ${count(n, v)}${scope} that do` : ''}.`;
  else if (form.expects === 'fact') lead = `In the ${v.document} of ${pick.year}, ${who(c, pick.doc)} said: “${quote}”`;
  else if (form.ordinal && form.expects === 'person') lead = `${who(c, pick.doc)} is the ${first} ${v.author} in the corpus to mention ${quoted}, in the ${v.document} of ${pick.year}.`;
  else if (form.ordinal && form.expects === 'document') lead = `${capitalize(possessive(c, pick.doc))} ${v.document} of ${pick.year} is the ${first} in the corpus to mention ${quoted}.`;
  else if (form.ordinal) lead = `${pick.year}: the ${first} ${v.document}${scope} in the corpus to mention ${quoted} is ${possessive(c, pick.doc)}, of ${pick.year}.`;
  else if (form.expects === 'time') lead = `${pick.year}: ${who(c, pick.doc)} mentions ${quoted} in the ${v.document} of ${pick.year}${n > 1 ? `, the earliest of ${count(n, v)}${scope} that do` : ', the only one in the corpus that does'}.`;
  else lead = `${who(c, pick.doc)} speaks of ${quoted} in the ${v.document} of ${pick.year}${n > 1 ? `, the earliest of ${count(n, v)}${scope} that do` : ', the only one in the corpus that does'}.`;
  const body = form.expects === 'fact' ? '' : ` ${said(c, pick.doc, quote)}`;
  const tail = form.expects === 'count' || (form.ordinal === null && form.expects !== 'fact') ? (n > 1 ? ` The last is ${possessive(c, latest.doc)} of ${latest.year}.` : '') : span;
  return { found: true, text: `${lead}${body}${tail}`, evidence, signals: { tier, documents: n } };
}

/**
 * "Which president mentioned X most often?": the author with the most documents that say it (ties: the
 * earlier one); "Which address mentions X most?": the document with the most passages that say it.
 */
function mostAnswer(c: Context, subject: Subject, matches: readonly Match[], chronological: readonly Match[]): Omit<CorpusAnswer, 'signals'> & { signals: Record<string, string | number | boolean> } {
  const { vocabulary: v } = c;
  const quoted = `“${subject.phrase}”`;
  const group = (key: (m: Match) => string, ms: readonly Match[]) => {
    const by = new Map<string, Match[]>();
    for (const m of ms) by.set(key(m), [...(by.get(key(m)) ?? []), m]);
    return [...by.entries()].sort((a, b) => b[1].length - a[1].length || a[1][0]!.year - b[1][0]!.year);
  };
  let lead: string;
  let shown: Match[];
  if (c.form.expects === 'person') {
    const ranked = group((m) => who(c, m.doc), chronological);
    const [top, docs] = ranked[0]!;
    const next = ranked[1];
    lead = `${top} mentions ${quoted} in more ${v.documents} than any other ${v.author}: ${docs.length} (${listYears(docs.map((m) => m.year))})${next ? `, ahead of ${next[0]} (${next[1].length})` : ''}.`;
    shown = docs;
  } else {
    const ranked = group((m) => m.doc, matches);
    const [doc, passages] = ranked[0]!;
    const next = ranked[1];
    lead = `${year(c, doc)}: ${possessive(c, doc)} ${v.document} of ${year(c, doc)} mentions ${quoted} more than any other, in ${passages.length} passages${next ? ` (next: ${possessive(c, next[0])} of ${year(c, next[0])}, ${next[1].length})` : ''}.`;
    shown = [...passages].sort((a, b) => b.score - a.score);
  }
  const evidence = shown.slice(0, c.limit).map((m) => evidenceOf(c, m, subject));
  return { found: true, text: `${lead} ${said(c, shown[0]!.doc, evidence[0]!.quote)}`, evidence, signals: { tier: 'phrase', documents: chronological.length, most: true } };
}

/** Each document's best match, oldest document first. */
function onePerDocument(matches: readonly Match[]): Match[] {
  const perDoc = new Map<string, Match>();
  for (const m of matches) {
    const seen = perDoc.get(m.doc);
    if (!seen || m.score > seen.score) perDoc.set(m.doc, m);
  }
  return [...perDoc.values()].sort((a, b) => a.year - b.year || a.order - b.order);
}

/** Every passage in scope that matches the subject, at the best tier any passage reaches. */
function matchesOf(c: Context, subject: Subject): { tier: Tier; matches: Match[] } {
  const { index, structure } = c;
  const scope = new Set(c.docs);
  const surface = surfaceMatcher(subject.words, subject.links, subject.name);
  const bm25 = new Map(index.searchTerms(subject.terms, { limit: index.size, filter: (id) => scope.has(structure.docOf(id) ?? '') }).map((h) => [h.id, h]));
  const phrase: Match[] = [];
  for (const doc of c.docs)
    for (const id of structure.passagesOf(doc)) if (surface(index.passage(id)!.text)) phrase.push(match(c, id, bm25.get(id)?.score ?? 0));
  if (phrase.length) return { tier: 'phrase', matches: phrase };
  const want = new Set(subject.terms);
  const full = [...bm25.values()].filter((h) => h.matched.length === want.size).map((h) => match(c, h.id, h.score));
  // A name's words apart do not name it.
  if (full.length && subject.terms.length > 1 && !subject.name) return { tier: 'terms', matches: full };
  return { tier: 'partial', matches: [...bm25.values()].slice(0, 50).map((h) => match(c, h.id, h.score)) };
}

function match(c: Context, id: string, score: number): Match {
  const doc = c.structure.docOf(id)!;
  return { id, doc, year: year(c, doc), score, order: order(c, doc) };
}

/**
 * Whether a text holds the subject's words as written, in order and joined by no other words than the
 * question's ("war on poverty"; "war and terror" is not the war on terror), an article aside: each word, its singular or plural ("airplane" for
 * "airplanes"), or two words written as one ("Viet-Nam" for "Vietnam"); a two-word compound also the other
 * way round through a preposition ("tax on incomes", "tax upon the incomes" for "income tax"; not through "of", "the change of climate" is not climate change). Loose words
 * are not the subject: "the climate has changed" is not "climate change". A name ("the United Nations") is
 * found capitalized, or in lower case only as written: "a united nation" is not the United Nations.
 */
export function surfaceMatcher(words: readonly string[], links: readonly (readonly string[])[] = words.map(() => []), name = false): (text: string) => boolean {
  const written = words.map((w) => w.toLowerCase().replace(/[’']/g, ''));
  const bases = written.map(baseOf);
  const probes = bases.map((b) => b.slice(0, 4));
  const hit = (token: string, b: string): boolean => token === b || INFLECTIONS.some((s) => token === b + s) || (b.endsWith('y') && token === `${b.slice(0, -1)}ies`);
  return (text) => {
    const lower = text.toLowerCase();
    if (!probes.every((p) => lower.includes(p))) return false;
    const original = text.replace(/[’']s\b/gi, '').replace(/[’']/g, '').split(/[^\p{L}\p{N}]+/u).filter(Boolean);
    const tokens = original.map((t) => t.toLowerCase());
    // at[k]: where word k starts, how many tokens it takes (2 when written as two), and whether as written.
    const at: Map<number, { size: number; exact: boolean }>[] = bases.map(() => new Map());
    for (let i = 0; i < tokens.length; i++)
      bases.forEach((b, k) => {
        if (hit(tokens[i]!, b)) at[k]!.set(i, { size: 1, exact: tokens[i] === written[k] });
        else if (i + 1 < tokens.length && hit(tokens[i]! + tokens[i + 1]!, b)) at[k]!.set(i, { size: 2, exact: tokens[i]! + tokens[i + 1]! === written[k] });
      });
    // `loose`: the words may take another form than the question's (always, but for a name in lower case).
    const from = (k: number, i: number, loose: boolean): boolean => {
      const { size, exact } = at[k]!.get(i)!;
      if (!loose && !exact) return false;
      if (k === bases.length - 1) return true;
      const joins = new Set([...links[k + 1]!, ...DETERMINERS]);
      for (let j = i + size; j <= i + size + links[k + 1]!.length; j++) {
        if (at[k + 1]!.has(j) && from(k + 1, j, loose)) return true;
        if (!joins.has(tokens[j] ?? '')) return false;
      }
      return false;
    };
    if ([...at[0]!.keys()].some((i) => from(0, i, !name || /^\p{Lu}/u.test(original[i]!)))) return true;
    // A compound said the other way round, through a preposition: "tax on incomes", "tax upon the incomes" for "income tax" (a name is not).
    if (bases.length !== 2 || name) return false;
    for (const i of at[1]!.keys()) {
      let j = i + at[1]!.get(i)!.size;
      if (!INVERSION_PREPOSITIONS.has(tokens[j] ?? '')) continue;
      j++;
      if (DETERMINERS.has(tokens[j] ?? '')) j++;
      if (at[0]!.has(j)) return true;
    }
    return false;
  };
}

// Not "of": "change of climate" (for cattle) is not climate change.
const INVERSION_PREPOSITIONS = new Set(['on', 'upon']);
const DETERMINERS = new Set(['the', 'a', 'an', 'its', 'their', 'all', 'such']);

const INFLECTIONS = ['s', 'es'];

/** A word without a plural ending ("freedoms" -> "freedom", "taxes" -> "tax", "policies" -> "policy"). */
function baseOf(w: string): string {
  if (w.length > 4 && w.endsWith('ies')) return `${w.slice(0, -3)}y`;
  if (w.length > 4 && /(s|x|z|ch|sh)es$/.test(w)) return w.slice(0, -2);
  if (w.length > 3 && w.endsWith('s') && !w.endsWith('ss')) return w.slice(0, -1);
  return w;
}

// ---------------------------------------------------------------- wording

function evidenceOf(c: Context, m: Match, subject: Subject): AnswerEvidence {
  const text = c.index.passage(m.id)!.text;
  const surface = surfaceMatcher(subject.words, subject.links, subject.name);
  const sentence = sentenceSpans(text).find((s) => surface(s.text))?.text ?? selectQuote(c.index, text, subject.terms, subject.terms).quote;
  return { id: m.id, quote: sentence, claim: said(c, m.doc, sentence) };
}

/** A document's opening sentence: what shows the document itself. */
function opening(c: Context, doc: string): AnswerEvidence {
  const id = c.structure.passagesOf(doc)[0]!;
  const spans = sentenceSpans(c.index.passage(id)!.text);
  // The first sentence of a readable length (an address's salutation or a page-long period is not).
  const quote = (spans.find((s) => s.text.length >= 40 && s.text.length <= 400) ?? spans[0]!).text;
  return { id, quote, claim: said(c, doc, quote) };
}

const said = (c: Context, doc: string, quote: string): string => `In ${year(c, doc)}, ${who(c, doc)} said: “${quote}”`;
const year = (c: Context, doc: string): number => c.structure.yearOf(doc)!;
const who = (c: Context, doc: string): string => c.structure.authorOf(doc) ?? doc;
const possessive = (c: Context, doc: string): string => {
  const name = who(c, doc);
  return /s$/.test(name) ? `${name}’` : `${name}’s`;
};
const order = (c: Context, doc: string): number => c.structure.documentKeys().indexOf(doc);
const byYear = (c: Context, docs: readonly string[]): string[] => [...docs].sort((a, b) => year(c, a) - year(c, b) || order(c, a) - order(c, b));
const count = (n: number, v: CorpusVocabulary): string => `${n} ${n === 1 ? v.document : v.documents}`;
const capitalize = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);

function listAnd(xs: readonly string[]): string {
  return xs.length <= 1 ? (xs[0] ?? '') : `${xs.slice(0, -1).join(', ')} and ${xs[xs.length - 1]}`;
}

/** "1861, 1862, 1863 and 1864", or "1790 to 1796 (7)" when there are many. */
function listYears(years: readonly number[]): string {
  if (years.length <= 6) return listAnd(years.map(String));
  return `${years[0]} to ${years[years.length - 1]}`;
}

/** What the question restricts to, as the answer says it: " by Abraham Lincoln", " from 1862", " from 1900 to 1920". */
function scopeText(c: Context): string {
  const by = c.authors.length ? ` by ${listOr(c.authors)}` : '';
  const y = c.form.years;
  const when = !y ? '' : y.from === y.to ? ` from ${y.from}` : y.from <= 0 ? ` before ${y.to + 1}` : y.to >= 9999 ? ` after ${y.from - 1}` : ` from ${y.from} to ${y.to}`;
  return by + when;
}

function listOr(xs: readonly string[]): string {
  return xs.length <= 1 ? (xs[0] ?? '') : `${xs.slice(0, -1).join(', ')} or ${xs[xs.length - 1]}`;
}
