/**
 * A ready-made script for the fake Messages API that plays every Orrery role plausibly, reading what it needs from the
 * request (topic, subtopic list, tool results, sources, findings). For whole-run tests with ENGINE=anthropic:
 *
 *   const api = await FakeMessagesApi.start();
 *   api.scriptByRole(researchScript({ rounds: 2 }));
 *   // start the service with ANTHROPIC_BASE_URL=api.baseURL, ANTHROPIC_API_KEY=anything
 *
 * Override any role by spreading: `api.scriptByRole({ ...researchScript(), judge: reply.json({...}) })`.
 */
import { CITED_TEXT_MAX, deferredWebSearch, fakePage, reply, webSearchBlocks, type FakeHandler, type FakeRequest } from './fake-messages-api';
import { fakeCiter, leadWriterOr } from './fake-lead-writer';

export interface ResearchScriptOptions {
  /** The judge says continue, and the gap finder proposes a new subtopic, until this round has completed. Default 1. */
  rounds?: number;
  /** Subtopics the planner proposes (1..5). Default 3. */
  subtopics?: number;
}

const between = (text: string, re: RegExp): string | undefined => re.exec(text)?.[1]?.trim();
const slug = (s: string): string => s.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '').slice(0, 40) || 'x';
const ASPECTS = ['background', 'recent developments', 'economic effects', 'criticism', 'outlook'];

function userText(req: FakeRequest): string {
  const first = req.messages[0];
  return typeof first?.content === 'string' ? first.content : (first?.content ?? []).map((b: { text?: string }) => b.text ?? '').join('\n');
}

export function researchScript(opts: ResearchScriptOptions = {}): Record<string, FakeHandler> {
  const rounds = opts.rounds ?? 1;
  const n = Math.max(1, Math.min(opts.subtopics ?? 3, ASPECTS.length));

  const planner: FakeHandler = (req) => {
    const topic = between(userText(req), /<untrusted_data label="topic">\n([\s\S]*?)\n<\/untrusted_data>/) ?? 'the topic';
    const words = topic.toLowerCase().split(/\W+/).filter((w) => w.length > 3).slice(0, 3);
    return reply.json({
      classification: n > 1 ? 'breadth' : 'straightforward',
      subtopics: ASPECTS.slice(0, n).map((a) => ({
        title: `${topic} — ${a}`.slice(0, 290),
        query: `${words.join(' ')} ${a}`.trim(),
        facetTerms: [a, ...words.slice(0, 1)],
        excludeTerms: [],
        // The lead writes each researcher's brief.
        objective: `Establish the ${a} of ${topic}`.slice(0, 900),
        keyQuestions: [`What are the ${a}?`, `Which sources document the ${a} first-hand?`],
        sourceTypes: ['official records', 'news reports'],
        toolCalls: 8,
      })),
      confidence: 0.8,
      rationale: 'one subtopic per aspect',
    });
  };

  const coverageCritic: FakeHandler = (req) => {
    const ids = [...userText(req).matchAll(/^- ([a-z0-9-]+): /gm)].map((m) => m[1]!);
    return reply.json({ facets: ids.map((id) => ({ name: id, coveredBy: [id] })), overlaps: [], missing: [], confidence: 0.9, reason: 'every facet has a subtopic' });
  };

  /** Until the last round, one gap-targeted subtopic per round (a new angle brings new sources); then none. */
  const gapFinder: FakeHandler = (req) => {
    const text = userText(req);
    const round = Number(between(text, /Round (\d+) just completed/) ?? '1');
    if (round >= rounds) return reply.json({ newSubtopics: [], thinSubtopicIds: [], confidence: 0.8, reason: 'no gaps found' });
    const topic = between(text, /<untrusted_data label="topic">\n([\s\S]*?)\n<\/untrusted_data>/) ?? 'the topic';
    const words = topic.toLowerCase().split(/\W+/).filter((w) => w.length > 3).slice(0, 2);
    const angle = `follow-up ${round}`;
    return reply.json({
      newSubtopics: [{ title: `${topic} — ${angle}`.slice(0, 290), query: `${words.join(' ')} ${angle}`.trim(), facetTerms: [angle], excludeTerms: [] }],
      thinSubtopicIds: [],
      confidence: 0.8,
      reason: `round ${round}: one facet still thin`,
    });
  };

  const judge: FakeHandler = (req) => {
    const round = Number(between(userText(req), /Round just completed: (\d+)/) ?? '1');
    return round < rounds
      ? reply.json({ signal: 'continue', confidence: 0.7, reason: `round ${round} of ${rounds} still yields new sources` })
      : reply.json({ signal: 'stop', confidence: 0.9, reason: 'enough evidence gathered' });
  };

  /**
   * A researcher that works like the model does on a real task: several turns, web search and the corpus in the same
   * turn (the web search is then deferred until the corpus results come back), a passage read, a second search, then
   * notes citing a web page. Text put after tool results gets the empty end_turn the model answers it with.
   */
  const researcher: FakeHandler = (req) => {
    const query = between(userText(req), /Search query to start from: (.*)/) ?? 'research';
    const hasCorpus = req.tools.some((t: { name: string }) => t.name === 'search_corpus');
    const hasWeb = req.tools.some((t: { name: string }) => t.name === 'web_search');
    const canFetch = req.tools.some((t: { name: string }) => t.name === 'web_fetch');
    const final = req.body.tool_choice?.type === 'none';
    const turn = req.messages.filter((m: { role: string }) => m.role === 'assistant').length;
    const last = req.messages[req.messages.length - 1];
    const lastBlocks: Array<{ type: string }> = Array.isArray(last?.content) ? last.content : [];
    if (last?.role === 'user' && lastBlocks.some((b) => b.type === 'tool_result') && lastBlocks.at(-1)?.type === 'text') return reply.empty();
    const url = `https://example.org/${slug(query)}`;
    // The report quotes the page it read whole (at most 150 characters of it, as a citation carries), else the snippet.
    const fetched = JSON.stringify(req.messages).includes('"web_fetch_result"');
    const notes = () =>
      reply.text(
        `Report on ${query}: the findings are below, with their sources. Not found: figures before 2020. Conflict: the 2022 survey and the register disagree.`,
        hasWeb ? [{ url, title: `About ${query}`, cited_text: fetched ? fakePage(url).text.split('\n')[1]!.slice(0, CITED_TEXT_MAX) : `A source says ${query} matters.` }] : undefined,
      );
    // After a stop the engine asks for the report without tools: the model writes it.
    if (final) return notes();
    if (!hasCorpus) {
      if (turn === 0) return reply.pauseTurn([{ query, results: [{ url, title: `About ${query}` }] }]);
      // The most promising result, read whole.
      if (turn === 1 && canFetch) return reply.fetch([url]);
      return notes();
    }
    const seen = [...JSON.stringify(req.messages).matchAll(/untrusted_source id=\\"([^"\\]+)\\"/g)].map((m) => m[1]!);
    const corpus = (q: string) => ({ name: 'search_corpus', input: { query: q, limit: 5 } });
    switch (turn) {
      case 0:
        return reply.toolUse([corpus(query)], 'Searching the web and the corpus.', hasWeb ? [deferredWebSearch(query)] : []);
      case 1:
        return reply.toolUse([corpus(`${query} history`)], 'Looking for the history as well.');
      case 2:
        return reply.toolUse(
          [seen[0] ? { name: 'read_passage', input: { id: seen[0] } } : corpus(`${query} effects`)],
          'Reading the most relevant passage.',
          hasWeb ? webSearchBlocks(`${query} recent`, [{ url, title: `About ${query}` }]) : [],
        );
      case 3:
        return reply.toolUse([corpus(`${query} outlook`)], 'One more angle.');
      case 4:
        // The web page search returned, read whole.
        return hasWeb && canFetch ? reply.fetch([url]) : notes();
      default:
        return notes();
    }
  };

  const extractor: FakeHandler = (req) => {
    const max = Number(between(userText(req), /Extract at most (\d+) findings/) ?? '5');
    const blocks = [...userText(req).matchAll(/<untrusted_source id="([^"]+)"[^>]*>\n([\s\S]*?)\n<\/untrusted_source>/g)].map((m) => ({ sourceId: m[1]!, lines: m[2]!.split('\n').map((l) => l.trim()).filter(Boolean) }));
    // Each source's opening first, web pages before passages (a real extractor weighs every source, not the first few it
    // was shown); then the further sentences of the pages read whole, which no snippet holds.
    const first = blocks
      .map((b) => ({ sourceId: b.sourceId, quote: b.lines[0]?.slice(0, 80).trim() ?? '' }))
      .sort((a, b) => Number(b.sourceId.startsWith('web-')) - Number(a.sourceId.startsWith('web-')));
    const further = blocks.filter((b) => b.sourceId.startsWith('web-')).flatMap((b) => b.lines.slice(1).map((quote) => ({ sourceId: b.sourceId, quote })));
    const findings = [...first, ...further]
      .filter((f) => f.quote.length > 0)
      .slice(0, max)
      .map((f) => ({ claim: `The source ${f.sourceId} states: ${f.quote}`, ...f }));
    const disputed = further.filter((f) => /disagrees/.test(f.quote)).map((f) => `${f.sourceId}: ${f.quote}`.slice(0, 480));
    return reply.json({ findings, gaps: further.length ? ['No figures before 2020.'] : [], conflicts: disputed });
  };

  const writer: FakeHandler = (req) => {
    const text = userText(req);
    const limit = Number(between(text, /Cite at most (\d+) distinct sources/) ?? '10');
    const cited = new Set<string>();
    const sections = [...text.matchAll(/^## (.*) \(subtopicId: ([^)]*)\)\n((?:- .*\n?(?:  quote: .*\n?)?)*)/gm)]
      .map((m) => {
        const findingIds = [...m[3]!.matchAll(/^- \[([^\]]+)\] \(source ([^)]+)\)/gm)]
          .filter((f) => cited.has(f[2]!) || (cited.size < limit && cited.add(f[2]!)))
          .map((f) => f[1]!)
          .slice(0, 5);
        return { title: m[1]!, subtopicId: m[2]!, paragraphs: findingIds.length ? [{ text: `What the sources say about ${m[1]}.`, findingIds }] : [] };
      })
      .filter((s) => s.paragraphs.length > 0);
    return reply.json({
      title: 'Research report',
      summary: `A summary across ${sections.length} sections.`,
      sections: sections.length ? sections : [{ title: 'Findings', subtopicId: '', paragraphs: [{ text: 'No findings.', findingIds: ['none'] }] }],
    });
  };

  return { planner, 'coverage-critic': coverageCritic, 'gap-finder': gapFinder, judge, researcher, extractor, writer: leadWriterOr(writer), citer: fakeCiter };
}
