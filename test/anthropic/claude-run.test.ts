/**
 * Whole ENGINE=anthropic runs against the fake Messages API, counting as the real API does (issue 15, "how it will be
 * checked"): a 3-round run that names a corpus, so researchers get web search and the corpus tools together, ends done
 * with a cited report, reads most of its input from the prompt cache, and shows its cost in the run, the report and
 * /metrics, within 2% of the published prices (issue 27); a run that names no corpus researches the web alone; a run
 * with a low token budget ends within one task's share of it and says so in its decisions.
 */
import { type Decision, type Run, SearchTaskSchema, type StoredRunEvent, SynthesizeTaskSchema } from '@orrery/protocol';
import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeMessagesApi, fakePage, fakePageAge } from '../support/fake-messages-api';
import { publishedCost } from '../support/fake-published-prices';
import { researchScript } from '../support/fake-research-script';
import { type Stack, startStack } from '../support/stack';
import { redisClient, ROOT } from '../support/test-env';

const decisionsOf = (events: StoredRunEvent[]): Decision[] => events.flatMap((e) => (e.type === 'decision' ? [e.decision] : []));
const tokens = (u: Run['usage']) => u.inputTokens + u.outputTokens + u.cacheReadTokens + u.cacheWriteTokens;
const input = (u: Run['usage']) => u.inputTokens + u.cacheReadTokens + u.cacheWriteTokens;

describe('Claude runs that hold up against the Messages API', () => {
  let api: FakeMessagesApi;
  let stack: Stack;

  beforeAll(async () => {
    api = await FakeMessagesApi.start();
    api.scriptByRole(researchScript({ rounds: 3, subtopics: 3 }));
    stack = await startStack('claude-run', {
      workers: 2,
      env: { ENGINE: 'anthropic', ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: api.baseURL, WEB_SEARCH: 'on' },
      workerEnv: { SUBAGENT_CONCURRENCY: '2' },
    });
  }, 90_000);
  afterAll(async () => {
    await stack?.stop();
    await api?.close();
  });

  it('a 3-round run ends done with a cited report, reads at least half its input from the cache, and shows its cost in the run, the report and /metrics', async () => {
    const started = Date.now();
    const { id } = await stack.client.submit({ topic: 'How has the Kestrel River changed: floods, dams and fisheries?', corpus: 'kestrel' });
    const events = await stack.follow(id);
    const wallSeconds = (Date.now() - started) / 1000;
    expect(events.at(-1), JSON.stringify(events.filter((e) => e.type === 'task.failed'))).toMatchObject({ type: 'run.finished', status: 'done' });
    expect(api.rejected.map((r) => r.validationError)).toEqual([]);
    const run = await stack.client.run(id);
    expect(run.rounds).toHaveLength(3);

    // Both tools were offered to every researcher, and turns used them together; every request that can search can fetch.
    const researcher = api.accepted.filter((r) => r.role === 'researcher');
    for (const r of researcher) expect(r.body.tools.map((t: { name: string }) => t.name)).toEqual(['web_search', 'web_fetch', 'search_corpus', 'read_passage']);
    // Every researcher and extractor prompt states the date.
    const today = `Today's date is ${new Date().toISOString().slice(0, 10)}.`;
    for (const r of api.accepted.filter((q) => q.role === 'researcher' || q.role === 'extractor')) expect(JSON.stringify(r.body.system)).toContain(today);
    // Later rounds build on the evidence so far: their briefs carry the findings their subtopics extend.
    const later = researcher.filter((r) => r.body.messages.length === 1 && /Search query to start from: .*follow-up/.test(JSON.stringify(r.body.messages[0])));
    expect(later.length).toBeGreaterThan(0);
    for (const r of later) expect(JSON.stringify(r.body.messages[0])).toContain('Evidence the run already holds');

    const report = await stack.client.report(id);
    const citations = report.sections.flatMap((s) => s.paragraphs.flatMap((p) => p.citations));
    expect(citations.length).toBeGreaterThan(0);
    expect(report.sources.some((s) => s.id.startsWith('web-'))).toBe(true);
    expect(report.sources.some((s) => s.id.startsWith('kr-'))).toBe(true);
    // Whole pages are evidence: the report cites sentences only the fetched page holds (no snippet or citation did).
    const deep = (c: { sourceId: string; quote: string }) => {
      const url = report.sources.find((s) => s.id === c.sourceId)?.url;
      return !!url && fakePage(url).text.split('\n').slice(1).some((line) => line.includes(c.quote));
    };
    expect(citations.some(deep)).toBe(true);

    // The run's usage is what the API billed, over every request of the run.
    const billed = (k: string) => api.accepted.reduce((n, q) => n + (q.usage[k] ?? 0), 0);
    expect(run.usage.cacheReadTokens).toBe(billed('cache_read_input_tokens'));
    expect(run.usage.inputTokens).toBe(billed('input_tokens'));
    const share = run.usage.cacheReadTokens / input(run.usage);
    expect(share).toBeGreaterThanOrEqual(0.5);
    expect(run.usage.webSearchRequests).toBe(api.billedSearches.length);
    expect(run.usage.costUsd).toBeGreaterThan(0);
    // The reported cost is what the run's usage costs at the published prices (issue 27: within 2%).
    const published = api.accepted.reduce((n, q) => n + publishedCost(q.body.model, q.usage), 0);
    expect(Math.abs(run.usage.costUsd - published) / published).toBeLessThanOrEqual(0.02);
    expect(report.metadata.usage).toEqual(run.usage);
    const markdown = await stack.client.reportMarkdown(id);
    expect(markdown).toContain(`cost $${run.usage.costUsd.toFixed(4)}`);

    const metrics = await (await fetch(`${stack.coordinator.url}/metrics`)).text();
    const cost = Number(/^orrery_cost_usd_total\{engine="anthropic"\} ([\d.e-]+)$/m.exec(metrics)?.[1]);
    expect(cost).toBeCloseTo(run.usage.costUsd, 6);
    expect(metrics).toMatch(/^orrery_tokens_total\{engine="anthropic",kind="cache_read"\} [1-9]/m);
    expect(metrics).toMatch(/^orrery_anthropic_ratelimit\{resource="requests",kind="limit"\} 4000$/m);

    // The owner's day meters (the per-key quotas) took what the run spent: tokens exactly, dollars to the millionth
    // per update. This is the stack's first run, so the meters hold this run alone.
    const meter = async (name: string) => {
      const redis = redisClient();
      const v = Number((await redis.get(`${stack.prefix}:quota:{${run.owner}}:${name}:${new Date().toISOString().slice(0, 10)}`)) ?? 0);
      redis.disconnect();
      return v;
    };
    await expect.poll(() => meter('tokens')).toBe(tokens(run.usage));
    expect(Math.abs((await meter('cost-microusd')) - run.usage.costUsd * 1e6)).toBeLessThanOrEqual(run.stateVersion);
    // Per role: requests, thinking tokens, cache writes and reads, dollars at the published prices (docs/claude.md).
    const byRole = new Map<string, { n: number; input: number; thinking: number; written: number; read: number; usd: number }>();
    for (const q of api.accepted) {
      const r = byRole.get(q.role ?? '?') ?? { n: 0, input: 0, thinking: 0, written: 0, read: 0, usd: 0 };
      r.n += 1;
      r.input += q.usage.input_tokens + (q.usage.cache_read_input_tokens ?? 0) + (q.usage.cache_creation_input_tokens ?? 0);
      r.thinking += q.usage.output_tokens_details?.thinking_tokens ?? 0;
      r.written += q.usage.cache_creation_input_tokens ?? 0;
      r.read += q.usage.cache_read_input_tokens ?? 0;
      r.usd += publishedCost(q.body.model, q.usage);
      byRole.set(q.role ?? '?', r);
    }
    console.log(`[claude-run] by role: ${[...byRole].map(([role, r]) => `${role} ${r.n} req, input ${r.input}, thinking ${r.thinking}, cache writes ${r.written}, reads ${r.read}, $${r.usd.toFixed(4)}`).join('; ')}`);
    // For the closing note: the figures of this run.
    console.log(
      `[claude-run] 3 rounds, ${api.accepted.length} requests, ${researcher.length} researcher turns; input ${input(run.usage)} tokens, ` +
        `cache reads ${run.usage.cacheReadTokens} (${(share * 100).toFixed(1)}%), writes ${run.usage.cacheWriteTokens}, output ${run.usage.outputTokens}; ` +
        `${run.usage.webSearchRequests} web searches, ${run.usage.webFetchRequests} fetches; ` +
        `findings per task ${run.rounds.map((r) => `${r.newFindings}/${r.subtopicIds.length}`).join(', ')} (round: findings/tasks); ${citations.length} citations (${citations.filter(deep).length} of whole-page text); ` +
        `cost $${run.usage.costUsd.toFixed(4)} (published prices: $${published.toFixed(4)}); wall ${wallSeconds.toFixed(1)} s`,
    );
  }, 240_000);

  it('a run that names no corpus is a web run: no corpus tool offered, no plan or research from a corpus', async () => {
    const before = api.requests.length;
    const { id } = await stack.client.submit({ topic: 'How are battery recycling rules changing in the EU?' });
    const events = await stack.follow(id);
    expect(events.at(-1)).toMatchObject({ type: 'run.finished', status: 'done' });
    const run = await stack.client.run(id);
    expect(run.corpus).toBeUndefined();
    const mine = api.accepted.slice(before).filter((r) => JSON.stringify(r.body.messages).includes('battery recycling'));
    const researcher = mine.filter((r) => r.role === 'researcher');
    expect(researcher.length).toBeGreaterThan(0);
    for (const r of researcher) expect(r.body.tools.map((t: { name: string }) => t.name)).toEqual(['web_search', 'web_fetch']);
    expect(decisionsOf(events).filter((d) => d.decisionType === 'fallback')).toEqual([]);
    const report = await stack.client.report(id);
    expect(report.sources.length).toBeGreaterThan(0);
    expect(report.sources.every((s) => s.id.startsWith('web-'))).toBe(true);
    // The lead writes from each page's date: the search result's page_age, carried through the ledger.
    const brief = JSON.stringify(mine.find((r) => r.role === 'writer')!.body.messages);
    const dated = report.sources.filter((s) => s.url && fakePageAge(s.url));
    expect(dated.length).toBeGreaterThan(0);
    for (const s of dated) expect(brief).toContain(`dated ${fakePageAge(s.url!)} — ${s.url}`);
  }, 240_000);

  it('a run with a low token budget ends within one task\'s share of it, and says so in its decisions', async () => {
    const maxTokens = 40_000;
    const { id } = await stack.client.submit({ topic: 'What happened to the salmon of the Kestrel River and its dams?', corpus: 'kestrel', budget: { maxTokens } });
    const events = await stack.follow(id);
    expect(events.at(-1)).toMatchObject({ type: 'run.finished', status: 'done' });
    const run = await stack.client.run(id);
    const jobs = (await stack.jobs('subagents')).filter((j) => j.data.runId === id);
    const caps = jobs.map((j) => (j.name === 'search' ? SearchTaskSchema.parse(j.data).budget : SynthesizeTaskSchema.parse(j.data).budget)?.maxTokens ?? Infinity);
    // Every task carried its share, derived from what the run had left.
    expect(caps.every((c) => Number.isFinite(c))).toBe(true);
    expect(caps.filter((_, i) => jobs[i]!.name === 'search').every((c) => c <= maxTokens)).toBe(true);
    expect(tokens(run.usage)).toBeLessThanOrEqual(maxTokens + Math.max(...caps));
    const decisions = decisionsOf(events);
    const stops = decisions.filter((d) => d.decisionType === 'budget-stop' || (d.decisionType === 'budget' && /wrap-up/.test(d.conclusion)));
    expect(stops.length).toBeGreaterThan(0);
    console.log(`[claude-run] budget.maxTokens ${maxTokens}: used ${tokens(run.usage)} tokens, largest task share ${Math.max(...caps)}; decisions: ${[...new Set(stops.map((d) => d.decisionType))].join(', ')}`);
  }, 240_000);

  it("the CLI's final line gives the run's cost", async () => {
    const { stderr } = await promisify(execFile)(process.execPath, [resolve(ROOT, 'apps/cli/dist/research.js'), 'Kestrel River navigation and trade'], {
      env: { ...process.env, ORRERY_URL: stack.coordinator.url },
      timeout: 120_000,
    });
    const line = /\[orrery\] run (\S+) ended done in [\d.]+ s; cost (\$[\d.]+): .* tokens in \(\d+% read from cache\)/.exec(stderr);
    expect(line, stderr).not.toBeNull();
    const run = await stack.client.run(line![1]!);
    expect(line![2]).toBe(`$${run.usage.costUsd.toFixed(4)}`);
  }, 180_000);

  it('budget.maxCostUsd is accepted and enforced like the other dimensions', async () => {
    const { id } = await stack.client.submit({ topic: 'How did the Harlow Dam change the Kestrel River valley?', budget: { maxCostUsd: 0.25 } });
    const events = await stack.follow(id);
    expect(events.at(-1)).toMatchObject({ type: 'run.finished', status: 'done' });
    const run = await stack.client.run(id);
    expect(run.budget.maxCostUsd).toBe(0.25);
    const jobs = (await stack.jobs('subagents')).filter((j) => j.data.runId === id && j.name === 'search');
    const perTask = Math.max(...jobs.map((j) => SearchTaskSchema.parse(j.data).budget!.maxCostUsd));
    console.log(`[claude-run] budget.maxCostUsd 0.25: cost $${run.usage.costUsd}, largest task share $${perTask}`);
    expect(run.usage.costUsd).toBeLessThanOrEqual(0.25 + perTask + 0.01);
    expect(decisionsOf(events).some((d) => d.decisionType === 'budget-stop' || d.decisionType === 'budget')).toBe(true);
  }, 240_000);
});
