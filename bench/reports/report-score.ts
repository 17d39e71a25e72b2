import type { Report } from '@orrery/protocol';
import { analyzeTerms, reportShape } from '@orrery/language';

/** One question of the reports benchmark. */
export interface ReportQuestion {
  question: string;
  kind: 'comparative' | 'change' | 'survey' | 'absent' | 'docs';
  corpus: 'sotu' | 'docs';
  split: 'tune' | 'heldout';
  /** A comparison's sides: authors' names as the titles write them, or a word of the side's file names. */
  sides?: string[];
  /** The themes a historian would name (written before tuning): each a list of phrases, any of which names it. */
  themes?: string[][];
  /** A document answer's subject (written before tuning): phrases, any of which puts a cited passage on the subject. */
  subject?: string[];
  /** The one author the question names as speaking ("What did FDR say…"), as the titles write the name. */
  speaker?: string;
}

export interface ReportScore {
  question: ReportQuestion;
  cited: number;
  /** Comparative: cited passages per side, and the sections that cite every side. */
  perSide?: number[];
  sectionsWithAllSides?: number;
  /** Comparative: the phrases the lede says each side "dwells on", and how many of them two of the report's quotes say. */
  contrastPhrases?: number;
  contrastRepeated?: number;
  sections: number;
  /** Absent: the lede's first sentence says the corpus does not answer. */
  saysAbsent: boolean;
  /** Numbers the lede states, and how many of them the cited sources contradict. */
  numbers: number;
  numberErrors: string[];
  titles: number;
  groundedTitles: number;
  ungrounded: string[];
  /** Of `question.themes`, how many some section title names. */
  themesNamed: number;
  /** Sections whose title's words occur in most of their quotes. */
  coherentSections: number;
  /** Quotes the sections cite, and how many of them name the question's subject (a word of it). */
  quotes: number;
  quotesOnSubject: number;
  /** Document answers with a `subject`: cited quotes, and how many of them are on it (every word of one phrase). */
  docQuotes: number;
  docQuotesOnSubject: number;
  /** With a `speaker`: cited passages that are the speaker's. */
  bySpeaker?: number;
}

/** Words that name a date or a post, never what a section is about (the benchmark's own list). */
const NOT_A_TOPIC = new Set(
  'january february march april may june july august september october november december secretary president congress senate department commissioner attorney general governor minister fiscal year'
    .split(' ')
    .flatMap((w) => analyzeTerms(w)),
);

const authorOf = (title: string): string => title.replace(/^\d{4},\s*/, '');
const yearOf = (title: string): number | null => (/^(\d{4}),/.exec(title) ? Number(/^(\d{4}),/.exec(title)![1]) : null);

/** Whether a source belongs to a side: its author (dated titles), or the side's word in its id or title. */
function onSide(s: { id: string; title: string }, side: string): boolean {
  if (yearOf(s.title) !== null) return authorOf(s.title) === side;
  const w = side.toLowerCase();
  return s.id.toLowerCase().split(/[^a-z0-9]+/).includes(w) || s.id.toLowerCase().startsWith(`${w}/`);
}

/**
 * Every count a lede states, recomputed from the sources the report cites (their titles: "<year>, <name>"):
 * the whole report's passages, documents, authors and years; the densest period; who is quoted most; each
 * side's passages, documents and years. Both the current wording and the earlier one ("N passages from D
 * addresses by P presidents speak to …") are read, so a report of either can be checked.
 */
export function ledeNumberErrors(report: Report): { numbers: number; errors: string[] } {
  const lede = report.summary;
  const sources = report.sources;
  const errors: string[] = [];
  let numbers = 0;
  const check = (what: string, said: number, actual: number): void => {
    numbers++;
    if (said !== actual) errors.push(`${what}: says ${said}, the cited sources hold ${actual}`);
  };
  const docs = (ss: typeof sources): number => new Set(ss.map((s) => s.title.split(/\s+>\s+/)[0])).size;
  const authors = (ss: typeof sources): number => new Set(ss.filter((s) => yearOf(s.title) !== null).map((s) => authorOf(s.title))).size;
  const whole = /(?:The report cites )?(\d+) passages? (?:from (\d+) [^,.]*?(?: by (\d+) (?:presidents?|authors?))?)?(?:, (\d{4})(?:–(\d{4}))?\.| speak to| of the corpus speak to)/.exec(lede);
  if (whole && !/ of [A-Z][^’]+’s? /.test(whole[0])) {
    check('passages', Number(whole[1]), sources.length);
    if (whole[2]) check('documents', Number(whole[2]), docs(sources));
    if (whole[3]) check('authors', Number(whole[3]), authors(sources));
  }
  const dense = /densest in (\d{4})–(\d{4}) \((\d+) of (\d+) passages\)/.exec(lede);
  if (dense) {
    const inEra = sources.filter((s) => (yearOf(s.title) ?? -1) >= Number(dense[1]) && (yearOf(s.title) ?? 1e9) <= Number(dense[2])).length;
    check('passages in the densest period', Number(dense[3]), inEra);
    check('passages in all', Number(dense[4]), sources.length);
  }
  const most = /(?:, and )?([A-Z][\w.]*(?: [A-Z][\w.]*)*) is quoted most \((\d+) passages?\)/.exec(lede);
  if (most) check(`passages of ${most[1]}`, Number(most[2]), sources.filter((s) => authorOf(s.title) === most[1]).length);
  for (const m of lede.matchAll(/(\d+) passages? from (\d+) of ([A-Z][^’]*?)’s? [^(]*?\((\d{4})(?:–(\d{4}))?\)/g)) {
    const mine = sources.filter((s) => authorOf(s.title) === m[3]);
    check(`passages of ${m[3]}`, Number(m[1]), mine.length);
    check(`documents of ${m[3]}`, Number(m[2]), docs(mine));
  }
  return { numbers, errors };
}

/** A title is grounded when its words occur in its section's quotes or cited sources' titles, and none names a date or a post. */
export function titleGrounded(title: string, quotes: readonly string[], sourceTitles: readonly string[]): boolean {
  const own = analyzeTerms(title.replace(/^\d{3,4}(\s*[–-]\s*\d{3,4})?\s*:\s*/, ''));
  if (own.length === 0 || own.some((t) => NOT_A_TOPIC.has(t) || /^[0-9]/.test(t))) return false;
  const seen = new Set([...quotes, ...sourceTitles].flatMap((q) => analyzeTerms(q)));
  return own.every((t) => seen.has(t));
}

const bareTitle = (title: string): string => title.replace(/^\d{3,4}(\s*[–-]\s*\d{3,4})?\s*:\s*/, '').replace(/\s*\([^)]*\)\s*$/, '');

/** A theme is named when some section title holds every word of one of its phrases. */
export function themesNamed(themes: readonly string[][], titles: readonly string[]): number {
  const own = titles.map((t) => new Set(analyzeTerms(bareTitle(t))));
  return themes.filter((phrases) => phrases.some((p) => own.some((t) => analyzeTerms(p).every((w) => t.has(w))))).length;
}

/** A section is coherent when more than half its quotes hold a word of its title (a period prefix and a trailing "(…)" aside). */
export function sectionCoherent(title: string, quotes: readonly string[]): boolean {
  const own = analyzeTerms(bareTitle(title));
  if (own.length === 0 || quotes.length === 0) return false;
  const holding = quotes.filter((q) => {
    const terms = new Set(analyzeTerms(q));
    return own.some((w) => terms.has(w));
  }).length;
  return holding * 2 > quotes.length;
}

/** A quote is on the subject when it holds every word of one of the subject's phrases. */
export function onSubject(subject: readonly string[], quote: string): boolean {
  const terms = new Set(analyzeTerms(quote));
  return subject.some((p) => analyzeTerms(p).every((w) => terms.has(w)));
}

export function scoreReport(q: ReportQuestion, report: Report): ReportScore {
  const byId = new Map(report.sources.map((s) => [s.id, s]));
  const first = report.summary.split(/(?<=[.!?])\s/)[0] ?? '';
  const saysAbsent = /\b(does not answer|no passage|not in the corpus|nothing)\b/i.test(first);
  const { numbers, errors } = ledeNumberErrors(report);
  const sections = report.sections.filter((s) => s.title !== 'Overview');
  let grounded = 0;
  let coherent = 0;
  const ungrounded: string[] = [];
  for (const s of sections) {
    const quotes = s.paragraphs.flatMap((p) => p.citations.map((c) => c.quote ?? ''));
    if (sectionCoherent(s.title, quotes)) coherent++;
    const titles = s.paragraphs.flatMap((p) => p.citations.map((c) => `${byId.get(c.sourceId)?.title ?? ''} ${c.sourceId}`));
    if (titleGrounded(s.title, quotes, titles)) grounded++;
    else ungrounded.push(s.title);
  }
  const subjectTerms = new Set(analyzeTerms(reportShape(q.question).subject || q.question));
  const cited = sections.flatMap((s) => s.paragraphs.flatMap((p) => p.citations.map((c) => c.quote ?? '')));
  const quotesOnSubject = cited.filter((c) => analyzeTerms(c).some((t) => subjectTerms.has(t))).length;
  const docSubject = q.subject ?? [];
  const allQuotes = report.sections.flatMap((s) => s.paragraphs.flatMap((p) => p.citations.map((c) => c.quote ?? '')));
  const out: ReportScore = { docQuotes: docSubject.length ? allQuotes.length : 0, docQuotesOnSubject: allQuotes.filter((c) => docSubject.length && onSubject(docSubject, c)).length, question: q, cited: report.sources.length, sections: report.sections.length, saysAbsent, numbers, numberErrors: errors, titles: sections.length, groundedTitles: grounded, ungrounded, themesNamed: themesNamed(q.themes ?? [], sections.map((s) => s.title)), coherentSections: coherent, quotes: cited.length, quotesOnSubject };
  if (q.speaker) out.bySpeaker = report.sources.filter((s) => onSide(s, q.speaker!)).length;
  if (q.sides) {
    out.perSide = q.sides.map((side) => report.sources.filter((s) => onSide(s, side)).length);
    out.sectionsWithAllSides = report.sections.filter((s) => q.sides!.every((side) => s.paragraphs.some((p) => p.citations.some((c) => byId.has(c.sourceId) && onSide(byId.get(c.sourceId)!, side))))).length;
    const phrases = [...report.summary.matchAll(/passages dwell on ([^:]+):/g)].flatMap((m) => m[1]!.split(' and ').map((p) => p.trim().toLowerCase()));
    out.contrastPhrases = phrases.length;
    out.contrastRepeated = phrases.filter((p) => allQuotes.filter((c) => c.toLowerCase().includes(p)).length >= 2).length;
  }
  return out;
}

/** The figures of a set of scores, as the benchmark's table prints them. */
export function summarize(scores: readonly ReportScore[]): Record<string, string> {
  const cmp = scores.filter((s) => s.question.kind === 'comparative');
  const absent = scores.filter((s) => s.question.kind === 'absent');
  const present = scores.filter((s) => s.question.kind !== 'absent');
  const mean = (xs: number[]): string => (xs.length ? (xs.reduce((a, b) => a + b, 0) / xs.length).toFixed(2) : '–');
  const balance = cmp.map((s) => (Math.max(...s.perSide!) ? Math.min(...s.perSide!) / Math.max(...s.perSide!) : 0));
  const titles = scores.reduce((a, s) => a + s.titles, 0);
  const grounded = scores.reduce((a, s) => a + s.groundedTitles, 0);
  const numbers = scores.reduce((a, s) => a + s.numbers, 0);
  const themed = scores.filter((s) => s.question.themes?.length);
  const docs = scores.filter((s) => s.question.kind === 'docs');
  const subjects = docs.filter((s) => s.question.subject?.length);
  const docShare = (s: ReportScore): number => (s.docQuotes ? s.docQuotesOnSubject / s.docQuotes : 0);
  const coherent = scores.reduce((a, s) => a + s.coherentSections, 0);
  const errors = scores.reduce((a, s) => a + s.numberErrors.length, 0);
  const timed = themed.filter((s) => s.question.kind === 'survey' || s.question.kind === 'change');
  const share = (n: number, of: number): string => (of ? `${(n / of).toFixed(3)} (${n}/${of})` : '–');
  const spoken = scores.filter((s) => s.question.speaker);
  return {
    questions: String(scores.length),
    'comparative: min/max side': mean(balance),
    'comparative: both sides ≥ 3': `${cmp.filter((s) => Math.min(...s.perSide!) >= 3).length}/${cmp.length}`,
    'comparative: sections with both sides': `${cmp.reduce((a, s) => a + s.sectionsWithAllSides!, 0)}/${cmp.reduce((a, s) => a + s.sections, 0)}`,
    'comparative: lede contrast phrases said in two quotes': `${cmp.reduce((a, s) => a + s.contrastRepeated!, 0)}/${cmp.reduce((a, s) => a + s.contrastPhrases!, 0)}`,
    'absent: says so': `${absent.filter((s) => s.saysAbsent).length}/${absent.length}`,
    'absent: passages cited (mean)': mean(absent.map((s) => s.cited)),
    'answerable: wrongly absent': `${present.filter((s) => s.saysAbsent).length}/${present.length}`,
    'lede number errors': `${errors} of ${numbers}`,
    'grounded titles': titles ? `${(grounded / titles).toFixed(3)} (${grounded}/${titles})` : '–',
    'themes named': `${themed.reduce((a, s) => a + s.themesNamed, 0)}/${themed.reduce((a, s) => a + s.question.themes!.length, 0)}`,
    'reports naming ≥ 3 themes': `${themed.filter((s) => s.themesNamed >= 3).length}/${themed.length}`,
    'coherent sections': titles ? `${(coherent / titles).toFixed(3)} (${coherent}/${titles})` : '–',
    'survey/change: quotes naming the subject': share(timed.reduce((a, s) => a + s.quotesOnSubject, 0), timed.reduce((a, s) => a + s.quotes, 0)),
    'speaker named: cited passages the speaker\'s': share(spoken.reduce((a, s) => a + s.bySpeaker!, 0), spoken.reduce((a, s) => a + s.cited, 0)),
    'docs: passages per answer (mean)': mean(docs.map((s) => s.cited)),
    'docs: answers citing ≤ 8': `${docs.filter((s) => s.cited <= 8).length}/${docs.length}`,
    'docs: quotes on the subject (mean share)': mean(subjects.map(docShare)),
    'docs: answers ≥ 0.6 on the subject, ≤ 10 passages': `${subjects.filter((s) => docShare(s) >= 0.6 && s.cited <= 10).length}/${subjects.length}`,
  };
}
