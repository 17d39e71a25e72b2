/**
 * The lead's writer and the citer, played by the fake Messages API from what their prompts hold (for whole-run and
 * engine tests). The writer writes as the brief asks: the answer first, a table, or a chronology, in the language it is
 * told, each finding's claim a sentence of its own, and a paragraph of its own analysis per section that cites nothing.
 * The citer cites each numbered sentence with the findings whose quote it repeats.
 */
import { reply, type FakeHandler, type FakeRequest } from './fake-messages-api';

const HEADINGS: Record<string, { sources: string; coverage: string; gaps: string; analysis: string; table: string; answer: string }> = {
  en: { sources: 'Sources', coverage: 'Coverage', gaps: 'Gaps that remain', analysis: 'Taken together, the sources point the same way, and what they leave open is noted above.', table: 'Comparison', answer: 'The answer' },
  fr: { sources: 'Sources', coverage: 'Couverture', gaps: 'Lacunes restantes', analysis: 'Dans l’ensemble, les sources vont dans le même sens ; ce qu’elles laissent ouvert est signalé plus haut.', table: 'Comparaison', answer: 'La réponse' },
};

function userText(req: FakeRequest): string {
  const first = req.messages[0];
  return typeof first?.content === 'string' ? first.content : (first?.content ?? []).map((b: { text?: string }) => b.text ?? '').join('\n');
}

const sentence = (claim: string): string => `${claim.replace(/\s+/g, ' ').trim().replace(/[.!?]*$/, '')}.`;

/** The lead's report, for a prompt in the lead's format (LeadWriter.brief). */
export const fakeLeadWriter: FakeHandler = (req) => {
  const text = userText(req);
  const question = /The user's question, which is your instruction: (.*)/.exec(text)?.[1] ?? 'the question';
  const lang = /Write the whole report in .*? \(([a-z-]+)\)/.exec(text)?.[1] ?? 'en';
  const form = /Form: ([a-z-]+):/.exec(text)?.[1] ?? 'analysis';
  const h = HEADINGS[lang] ?? HEADINGS['en']!;
  const groups = [...text.matchAll(/^## (.*) \(subtopicId: ([^)]*)\)\n((?:- .*\n?(?:  quote: .*\n?)?)*)/gm)].map((m) => ({
    title: m[1]!,
    subtopicId: m[2]!,
    claims: [...m[3]!.matchAll(/^- \[S\d+\] (.*)$/gm)].map((c) => c[1]!).slice(0, 6),
  })).filter((g) => g.claims.length);
  const first = groups[0]?.claims[0] ?? question;
  const sections = groups.map((g) => ({ title: g.title, subtopicId: g.subtopicId, paragraphs: [g.claims.map(sentence).join(' '), h.analysis] }));
  if (form === 'comparison-table' && groups.length) {
    const rows = groups.map((g) => `| ${g.title.replace(/\|/g, '/')} | ${sentence(g.claims[0]!).replace(/\|/g, '/')} |`);
    sections.unshift({ title: h.table, subtopicId: '', paragraphs: [[`| ${lang === 'fr' ? 'Aspect' : 'Aspect'} | ${lang === 'fr' ? 'Ce que disent les sources' : 'What the sources say'} |`, '| --- | --- |', ...rows].join('\n')] });
  }
  const summary = form === 'direct-answer' ? `${sentence(first)} ${h.analysis}` : `${sentence(first)} ${h.analysis}`;
  return reply.json({ title: `${h.answer}: ${question}`.slice(0, 290), summary, sections: sections.length ? sections : [{ title: h.answer, subtopicId: '', paragraphs: [h.analysis] }], headings: { sources: h.sources, coverage: h.coverage, gaps: h.gaps } });
};

const norm = (s: string): string => s.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ').trim();

/** The citer: a sentence is supported by the findings whose quote it repeats (or is a piece of). */
export const fakeCiter: FakeHandler = (req) => {
  const text = userText(req);
  const sentences = [...text.matchAll(/^S(\d+): (.*)$/gm)].map((m) => ({ n: Number(m[1]), text: norm(m[2]!) }));
  const findings = [...text.matchAll(/^(F\d+) \(source: .*?\): (".*")$/gm)].map((m) => ({ id: m[1]!, quote: norm(JSON.parse(m[2]!) as string) }));
  const citations = sentences
    .map((s) => ({ sentence: s.n, findingIds: findings.filter((f) => s.text.length > 8 && f.quote.length > 8 && (f.quote.includes(s.text) || s.text.includes(f.quote))).map((f) => f.id).slice(0, 3) }))
    .filter((c) => c.findingIds.length);
  return reply.json({ citations });
};

/** A writer handler that answers the lead's prompt as the lead, and any other (a writer of the old kind) with `other`. */
export const leadWriterOr =
  (other: FakeHandler): FakeHandler =>
  (req) =>
    /The user's question, which is your instruction:/.test(userText(req)) ? fakeLeadWriter(req) : other(req);
