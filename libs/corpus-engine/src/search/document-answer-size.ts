import type { Finding } from '@orrery/protocol';
import { analyzeTerms, asksHowTo, classifyRequest, reportShape, sentenceSpans } from '@orrery/language';

/** Passages a document answer cites by default: what answers, not all that matches. */
export const DOC_ANSWER_PASSAGES = 8;
/** Passages when the question asks for breadth ("list all…", "an overview of…"). */
export const BROAD_DOC_ANSWER_PASSAGES = 16;
/**
 * A passage answers when it holds at least this share of what the best passage holds of the question's words
 * (each weighted by its IDF): "Redis" alone, beside an ioredis HIMPORT example, is not "Redis over TLS with a password".
 */
export const ANSWER_SHARE = 0.5;

/**
 * The passages a document answer cites, the one that answers first, each quoting the line or sentence of it that
 * holds most of the question's words: ranked by how much of the question's words each holds, then (for a how-to
 * question) code before prose, then by relevance; one per source; those holding under ANSWER_SHARE of the best
 * left out; at most DOC_ANSWER_PASSAGES (BROAD_DOC_ANSWER_PASSAGES when the question asks for breadth).
 *
 * A word weighs its IDF times the share of the found passages that lack it (plus SHARED_WEIGHT): a word every
 * found passage holds ("pg" in a question about pg, over pg's READMEs) tells them little apart, so a passage that
 * holds only it does not answer "How do I set a connection timeout in pg?".
 */
export function answeringPassages(
  findings: readonly Finding[],
  topic: string,
  textOf: (id: string) => string | undefined,
  placeOf: (id: string) => { document: string; heading: string | null },
  idf: (term: string) => number = () => 1,
): Finding[] {
  const howTo = asksHowTo(topic);
  // "to all metrics" in a how-to question names what the one way applies to; it does not ask for a survey.
  const broad = !howTo && classifyRequest(topic).signals.breadthSignals !== 'none';
  const max = broad ? BROAD_DOC_ANSWER_PASSAGES : DOC_ANSWER_PASSAGES;
  const shape = reportShape(topic);
  // "What do the docs say about X" asks about X; "docs" and "say" are the frame.
  const question = analyzeTerms(shape.kind === 'documents' ? shape.subject : topic);
  const asked = [...new Set(question)];
  // Two words the question says side by side ("default labels"): a heading that says them so titles what is asked.
  const pairs = new Set(question.slice(1).map((t, i) => `${question[i]} ${t}`));
  const best = new Map<string, Finding>();
  for (const f of findings) {
    const prev = best.get(f.sourceId);
    if (!prev || (f.relevance?.score ?? 0) > (prev.relevance?.score ?? 0)) best.set(f.sourceId, f);
  }
  const found = [...best.values()].map((f) => {
    const text = textOf(f.sourceId) ?? f.quote;
    const { document, heading: title } = placeOf(f.sourceId);
    const heading = termsOf(title ?? '');
    const headingWords = analyzeTerms(identifierWords(title ?? ''));
    const phrased = new Set(headingWords.slice(1).flatMap((t, i) => (pairs.has(`${headingWords[i]} ${t}`) ? [headingWords[i]!, t] : [])));
    // A document named for what is asked ("busboy/README.md" for busboy; not "pg-connection-string" for pg) is about it.
    const named = termsOf(document.replace(/\/[^/]*$/, '').replace(/[-_/.]+/g, ' '));
    const name = [...named].every((t) => asked.includes(t)) ? named : new Set<string>();
    return { f, text, heading, phrased, name, holds: new Set([...termsOf(text), ...heading, ...name]), document };
  });
  const holders = new Map(asked.map((t) => [t, found.filter((x) => x.holds.has(t)).length]));
  const share = (t: string): number => (holders.get(t) ?? 0) / Math.max(1, found.length);
  const weight = (t: string, shared: number): number => idf(t) * (1 - share(t) + shared);
  const held = (terms: ReadonlySet<string>, shared = SHARED_WEIGHT): number => asked.reduce((a, t) => a + (terms.has(t) ? weight(t, shared) : 0), 0);
  // A word most found passages hold names what is asked about ("Redis"): a document that never says it is
  // about something else, however well it matches the rest ("password" in pg's connection strings).
  const common = asked.filter((t) => share(t) >= COMMON_SHARE);
  const says = new Map<string, Set<string>>();
  for (const x of found) {
    const words = says.get(x.document) ?? says.set(x.document, new Set()).get(x.document)!;
    for (const t of x.holds) words.add(t);
  }
  const ranked = found
    .filter((x) => common.every((t) => says.get(x.document)!.has(t)))
    // A heading that says the question's words titles a passage about them ("API > limits" over "Error handling"),
    // unless every found passage says them, and again where it says two of them as the question does ("Default
    // Labels" for "add default labels", over "Strongly typed Labels"); a document named for one counts it however
    // many others mention it.
    .map((x) => ({ ...x, held: held(x.holds) + held(x.heading, 0) + held(x.phrased, 0) + held(x.name), code: howTo && /```/.test(x.text) }))
    .sort((a, b) => b.held - a.held || Number(b.code) - Number(a.code) || (b.f.relevance?.score ?? 0) - (a.f.relevance?.score ?? 0));
  const top = ranked[0]?.held ?? 0;
  return ranked
    .filter((x) => x.held >= ANSWER_SHARE * top)
    .slice(0, max)
    .map((x) => ({ ...x.f, quote: answeringSpan(x.text, (terms) => held(terms)) ?? x.f.quote }));
}

/** What a word every found passage holds still weighs, as a share of its IDF: it still tells lines apart. */
const SHARED_WEIGHT = 0.25;
/** A word held by at least this share of the found passages names what the question is about. */
const COMMON_SHARE = 0.5;

/** A text's terms, with the words its identifiers run together read apart. */
function termsOf(text: string): Set<string> {
  return new Set([...analyzeTerms(text), ...analyzeTerms(identifierWords(text))]);
}

/**
 * The line of code or the sentence of prose that holds most of the question's words (by `held`, per word it
 * says), verbatim; null when none holds any. A quote of "connectionTimeoutMillis: 1000" answers "a connection
 * timeout" where the passage's first sentence ("to use pg-pool you must first create an instance") does not.
 */
function answeringSpan(text: string, held: (terms: ReadonlySet<string>) => number): string | null {
  let best: string | null = null;
  let bestScore = 0;
  for (const span of quotableSpans(text)) {
    const terms = termsOf(span);
    const score = held(terms) / Math.sqrt(Math.max(8, terms.size));
    if (score > bestScore) {
      bestScore = score;
      best = span;
    }
  }
  return best;
}

/**
 * A passage's sentences, with each of its code blocks read line by line (fences left out); a comment line is read
 * with the line of code after it, which it describes ("// using password …" then `new Redis("redis://:pw@…")`).
 */
function quotableSpans(text: string): string[] {
  return sentenceSpans(text).flatMap((s) => {
    if (!s.text.startsWith('```')) return [s.text];
    const lines = s.text.split('\n').slice(1);
    const spans: string[] = [];
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i]!.trim();
      if (!line || line.startsWith('```')) continue;
      const next = lines[i + 1]?.trim();
      spans.push(COMMENT.test(line) && next && !COMMENT.test(next) && !next.startsWith('```') ? `${lines[i]!}\n${lines[i + 1]!}`.trim() : line);
    }
    return spans;
  });
}

/** A line of code that only comments. */
const COMMENT = /^(\/\/|#(?!!)|\/\*|\*|--)/;

/**
 * The words code runs together, apart: "connectionTimeoutMillis" → "connection Timeout Millis", "max_age" →
 * "max age". A how-to question asks in words for what the answering code names in one identifier.
 */
export function identifierWords(text: string): string {
  return text.replace(/(\p{Ll})(\p{Lu})/gu, '$1 $2').replace(/(\p{L})_(?=\p{L})/gu, '$1 ');
}
