import type { PlanningInput, PlanningOutput, RefinementOutput, ModelJudgeInput as JudgeInput, CoordinatorEngine } from '../../libs/engine/src/engine';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AnthropicCoordinatorEngine } from '../../libs/claude-engine/src/coordinator-engine';
import { type AnthropicEngineOptions } from '../../libs/claude-engine/src/options';
import { FakeMessagesApi, reply } from '../support/fake-messages-api';
import { DEFAULT_PRICES } from '../../libs/claude-engine/src/pricing';
import { usageOf } from '../../libs/claude-engine/src/usage';
import { useFakeMessagesApi, lastMessage } from './fixtures';

let api: FakeMessagesApi;
useFakeMessagesApi((started) => (api = started));

const ZERO = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, webSearchRequests: 0, webFetchRequests: 0, costUsd: 0 };

function fakeFallback(): CoordinatorEngine & { calls: string[] } {
  const calls: string[] = [];
  return {
    name: 'corpus',
    calls,
    async plan(input: PlanningInput): Promise<PlanningOutput> {
      calls.push(`plan:${input.topic}`);
      return {
        plan: { classification: 'breadth', subtopics: [{ id: 'corpus-1', title: 'Corpus facet', query: 'q', facetTerms: ['x'], excludeTerms: [], origin: 'plan' }] },
        decisions: [{ decisionType: 'plan', level: 'L0', confidence: 0.7, conclusion: 'corpus plan', signals: {} }],
        usage: ZERO,
      };
    },
    async refine(): Promise<RefinementOutput> {
      calls.push('refine');
      return { newSubtopics: [], thinSubtopicIds: [], decisions: [], usage: ZERO };
    },
    async replan(): Promise<RefinementOutput> {
      calls.push('replan');
      return { newSubtopics: [], thinSubtopicIds: [], decisions: [], usage: ZERO };
    },
  };
}

const engine = (over: Partial<AnthropicEngineOptions> = {}) =>
  new AnthropicCoordinatorEngine({ client: api.client(), model: 'claude-opus-5-5', judgeModel: 'claude-haiku-5-5', ...over });

const planInput = (over: Partial<PlanningInput> = {}): PlanningInput => ({
  runId: '6f1c1a8e-4f9b-4a57-9a42-3f0a5a0c9d11',
  topic: 'AI in creative industries',
  maxSubtopics: 6,
  coverageCheck: true,
  ...over,
});

const draft = (title: string, facets: string[]) => ({ title, query: title.toLowerCase(), facetTerms: facets, excludeTerms: [] });

describe('AnthropicCoordinatorEngine.plan', () => {
  it('plans with structured output, then the coverage critique adds the missing facets', async () => {
    api.scriptByRole({
      planner: reply.json({ classification: 'breadth', subtopics: [draft('Visual art', ['painting', 'illustration'])], confidence: 0.8, rationale: 'r' }),
      'coverage-critic': reply.json({
        facets: [
          { name: 'visual art', coveredBy: ['visual-art'] },
          { name: 'music', coveredBy: [] },
          { name: 'writing', coveredBy: [] },
        ],
        overlaps: [],
        missing: [draft('Music', ['music', 'composition']), draft('Writing', ['writing', 'fiction'])],
        confidence: 0.9,
        reason: 'too narrow',
      }),
    });
    const out = await engine().plan(planInput());
    expect(out.plan.subtopics.map((s) => [s.id, s.origin])).toEqual([
      ['visual-art', 'plan'],
      ['music', 'coverage-check'],
      ['writing', 'coverage-check'],
    ]);
    expect(out.plan.subtopics[1]!.excludeTerms).toEqual(expect.arrayContaining(['painting', 'writing']));
    expect(out.plan.coverage).toMatchObject({ passed: false, uncoveredFacets: ['music', 'writing'] });
    expect(out.plan.coverage!.share).toBeCloseTo(1 / 3);
    expect(out.decisions.map((d) => d.decisionType)).toEqual(['plan', 'coverage-check']);
    expect(out.usage.inputTokens).toBeGreaterThan(0);
    // Structured output: each request carried a strict JSON schema; the planner used the coordinator model.
    const planner = api.accepted.find((r) => r.role === 'planner')!.body;
    expect(planner.model).toBe('claude-opus-5-5');
    expect(planner.output_config.format).toMatchObject({ type: 'json_schema', schema: { type: 'object', additionalProperties: false } });
    // A one-shot call: no cache breakpoint (a write would not be read back).
    expect(planner.system[0].cache_control).toBeUndefined();
    expect(planner.system[0].text).toMatch(/untrusted DATA/);
    expect(planner.messages[0].content).toMatch(/<untrusted_data label="topic">\nAI in creative industries\n<\/untrusted_data>/);
  });

  it('invalid output → retry with the validation error → fallback to the corpus engine (logged)', async () => {
    api.scriptByRole({ planner: [reply.json({ classification: 'wide', subtopics: [] }), reply.rawJson('{"classification":')] });
    const fallback = fakeFallback();
    const out = await engine({ fallback }).plan(planInput({ corpus: 'sotu' }));
    expect(fallback.calls).toEqual(['plan:AI in creative industries']);
    expect(out.plan.subtopics[0]!.id).toBe('corpus-1');
    // The retry is logged too, not lost with the failed attempt; then the fallback, then the fallback engine's plan.
    expect(out.decisions.map((d) => d.decisionType)).toEqual(['structured-retry', 'fallback', 'plan']);
    expect(out.decisions[1]!.conclusion).toMatch(/^plan: plan: model output invalid: .*fell back to the corpus engine$/);
    const planner = api.accepted.filter((r) => r.role === 'planner');
    expect(planner).toHaveLength(2);
    expect(lastMessage(planner[1]!.body).content).toMatch(/failed validation:\n- classification: /);
    expect(out.usage.inputTokens).toBeGreaterThan(0); // failed attempts are still paid for
  });

  it('invalid output twice without a fallback → a clear error', async () => {
    api.scriptByRole({ planner: [reply.rawJson('[]'), reply.rawJson('[]')] });
    await expect(engine().plan(planInput())).rejects.toThrow(/^Anthropic engine, plan: plan: model output invalid: .*no fallback engine is configured$/);
  });

  it('refusal on the plan → fallback', async () => {
    api.scriptByRole({ planner: reply.refusal() });
    const fallback = fakeFallback();
    const out = await engine({ fallback }).plan(planInput({ corpus: 'sotu' }));
    expect(out.decisions[0]).toMatchObject({ decisionType: 'fallback', conclusion: expect.stringMatching(/refusal/) });
  });

  it('a web run (no corpus) whose plan fails is not re-planned from a corpus it did not ask for', async () => {
    api.scriptByRole({ planner: [reply.rawJson('[]'), reply.rawJson('[]')] });
    const fallback = fakeFallback();
    await expect(engine({ fallback }).plan(planInput({ topic: 'Geothermal energy adoption in Iceland' }))).rejects.toThrow(/the run has no corpus to fall back to$/);
    expect(fallback.calls).toEqual([]);
  });

  it("a share above 1 from the coverage critique is clamped (structured outputs send numeric bounds only as a description), and the plan stands", async () => {
    api.scriptByRole({
      planner: reply.json({ classification: 'breadth', subtopics: [draft('Drilling', ['drilling']), draft('Heat pumps', ['heat pumps'])], confidence: 1.3, rationale: 'r' }),
      'coverage-critic': reply.json({
        facets: [{ name: 'drilling', coveredBy: ['drilling'] }, { name: 'heat pumps', coveredBy: ['heat-pumps'] }],
        overlaps: [{ first: 'drilling', second: 'heat-pumps', share: 1.2 }],
        missing: [],
        confidence: 0.9,
        reason: 'overlap',
      }),
    });
    const fallback = fakeFallback();
    const out = await engine({ fallback }).plan(planInput({ topic: 'Geothermal energy adoption in Iceland' }));
    expect(api.accepted.filter((r) => r.role === 'coverage-critic')).toHaveLength(1);
    expect(out.plan.coverage).toMatchObject({ maxOverlap: 1, passed: false });
    expect(out.plan.subtopics.map((s) => s.title)).toEqual(['Drilling', 'Heat pumps']);
    expect(out.decisions.find((d) => d.decisionType === 'plan')!.confidence).toBe(1);
    expect(fallback.calls).toEqual([]);
  });

  it('a coverage critique that fails twice keeps the valid plan (logged), and no corpus engine re-plans the topic', async () => {
    api.scriptByRole({
      planner: reply.json({ classification: 'breadth', subtopics: [draft('Drilling', ['drilling']), draft('Heat pumps', ['heat pumps'])], confidence: 0.8, rationale: 'r' }),
      'coverage-critic': [reply.rawJson('{"facets":'), reply.rawJson('{"facets":')],
    });
    const fallback = fakeFallback();
    for (const corpus of [undefined, 'sotu']) {
      const out = await engine({ fallback }).plan(planInput({ topic: 'Geothermal energy adoption in Iceland', ...(corpus ? { corpus } : {}) }));
      expect(out.plan.subtopics.map((s) => s.title)).toEqual(['Drilling', 'Heat pumps']);
      expect(out.plan.coverage).toBeUndefined();
      expect(out.decisions.map((d) => d.decisionType)).toEqual(['plan', 'structured-retry', 'coverage-check-skipped']);
    }
    expect(fallback.calls).toEqual([]);
  });

  it('plans at high effort and critiques at low, each with room to think in max_tokens', async () => {
    api.scriptByRole({
      planner: reply.json({ classification: 'breadth', subtopics: [draft('Drilling', ['drilling'])], confidence: 0.8, rationale: 'r' }),
      'coverage-critic': reply.json({ facets: [{ name: 'drilling', coveredBy: ['drilling'] }], overlaps: [], missing: [], confidence: 0.9, reason: 'ok' }),
    });
    await engine().plan(planInput());
    const by = (role: string) => api.accepted.find((r) => r.role === role)!;
    expect(by('planner').body.output_config.effort).toBe('high');
    expect(by('coverage-critic').body.output_config.effort).toBe('low');
    for (const role of ['planner', 'coverage-critic']) expect(by(role).stopReason).toBe('end_turn');
  });

  it('a refused plan is asked again of the fallback model before any corpus fallback', async () => {
    api.setHandler((req) =>
      req.body.model === 'claude-opus-5-5' ? reply.refusal('general_harms', 'no') : reply.json({ classification: 'breadth', subtopics: [draft('Drilling', ['drilling'])], confidence: 0.8, rationale: 'r' }),
    );
    const fallback = fakeFallback();
    const out = await engine({ fallback, refusalFallbackModel: 'claude-sonnet-5-5' }).plan(planInput({ corpus: 'sotu', coverageCheck: false }));
    expect(fallback.calls).toEqual([]);
    expect(out.plan.subtopics.map((s) => s.title)).toEqual(['Drilling']);
    expect(out.decisions.map((d) => d.decisionType)).toEqual(['model-fallback', 'plan']);
  });

  it('a refused plan is retried by the API itself on the fallback model (server-side fallback), in one request', async () => {
    api.setHandler((req) =>
      req.body.model === 'claude-opus-5-5' ? reply.refusal('general_harms', 'no') : reply.json({ classification: 'breadth', subtopics: [draft('Drilling', ['drilling'])], confidence: 0.8, rationale: 'r' }),
    );
    const out = await engine({ fallback: fakeFallback(), refusalFallbackModel: 'claude-sonnet-5-5' }).plan(planInput({ corpus: 'sotu', coverageCheck: false }));
    const planner = api.accepted.filter((r) => r.role === 'planner');
    expect(planner).toHaveLength(1);
    expect(planner[0]!.body.model).toBe('claude-opus-5-5');
    expect(planner[0]!.body.fallbacks).toEqual([{ model: 'claude-sonnet-5-5' }]);
    expect(String(planner[0]!.headers['anthropic-beta'])).toContain('server-side-fallback-2026-07-01');
    expect(out.plan.subtopics.map((s) => s.title)).toEqual(['Drilling']);
    const d = out.decisions.find((x) => x.decisionType === 'model-fallback')!;
    expect(d.signals).toMatchObject({ from: 'claude-opus-5-5', to: 'claude-sonnet-5-5' });
    // Billed at the prices of the model that served it.
    expect(out.usage.costUsd).toBeCloseTo(usageOf(planner[0]!.usage, 'claude-sonnet-5-5', DEFAULT_PRICES).costUsd, 10);
    expect(out.usage.costUsd).toBeLessThan(usageOf(planner[0]!.usage, 'claude-opus-5-5', DEFAULT_PRICES).costUsd);
  });

  it('a plan the fallback model refuses too is not asked of it again', async () => {
    api.setHandler(() => reply.refusal('general_harms', 'no'));
    const fallback = fakeFallback();
    await engine({ fallback, refusalFallbackModel: 'claude-sonnet-5-5' }).plan(planInput({ corpus: 'sotu', coverageCheck: false }));
    expect(api.accepted.filter((r) => r.role === 'planner')).toHaveLength(1);
    expect(fallback.calls).toHaveLength(1);
  });

  it('redacts the topic before it is sent', async () => {
    api.scriptByRole({ planner: reply.json({ classification: 'straightforward', subtopics: [draft('Contact', ['contact'])], confidence: 1, rationale: '' }) });
    const out = await engine().plan(planInput({ topic: 'who owns jane@corp.example and 192.168.0.7, card 4242-4242-4242-4242?', coverageCheck: false }));
    // A redaction decision with counts per kind, never the values.
    const redaction = out.decisions.find((d) => d.decisionType === 'redaction')!;
    expect(redaction.signals).toEqual({ total: 3, email: 1, ipv4: 1, card: 1 });
    expect(JSON.stringify(redaction)).not.toMatch(/jane@corp|192\.168|4242/);
    const raw = api.requests.map((r) => r.raw).join('');
    expect(raw).not.toMatch(/jane@corp|192\.168\.0\.7|4242-4242/);
    expect(raw).toContain('[REDACTED:email]');
    expect(raw).toContain('[REDACTED:ipv4]');
    expect(raw).toContain('[REDACTED:card]');
  });
});

describe('AnthropicCoordinatorEngine.refine', () => {
  it('turns the gap finder\'s answer into refinement subtopics and known thin ids', async () => {
    api.scriptByRole({
      'gap-finder': reply.json({ newSubtopics: [draft('Film', ['film'])], thinSubtopicIds: ['music', 'ghost'], confidence: 0.6, reason: 'film missing' }),
    });
    const plan = { classification: 'breadth' as const, subtopics: [{ id: 'music', title: 'Music', query: 'music', facetTerms: ['music'], excludeTerms: [], origin: 'plan' as const }] };
    const out = await engine().refine({ runId: 'r', topic: 'AI in creative industries', plan, round: 1, findings: [], evidence: { music: 1 }, maxNewTasks: 3 });
    expect(out.newSubtopics).toEqual([expect.objectContaining({ id: 'film', origin: 'refinement' })]);
    expect(out.thinSubtopicIds).toEqual(['music']);
    expect(out.decisions.map((d) => d.decisionType)).toEqual(['structured-retry', 'refine']);
  });
});

describe('AnthropicCoordinatorEngine briefs', () => {
  it('the planner writes each brief: objective, key questions, source types and effort reach the subtopic', async () => {
    api.scriptByRole({
      planner: reply.json({
        classification: 'breadth',
        subtopics: [{ ...draft('Battery recycling rules', ['recycling']), objective: 'Find what the EU battery regulation requires of recyclers', keyQuestions: ['What recovery rates apply?'], sourceTypes: ['EU regulation text'], toolCalls: 12 }],
        confidence: 0.8,
        rationale: 'r',
      }),
    });
    const out = await engine().plan(planInput({ coverageCheck: false }));
    expect(out.plan.subtopics[0]!.brief).toEqual({ objective: 'Find what the EU battery regulation requires of recyclers', keyQuestions: ['What recovery rates apply?'], sourceTypes: ['EU regulation text'], toolCalls: 12 });
  });

  it('a gap brief that repeats one the plan has, in other case or punctuation, is dropped, not sent again under a new id', async () => {
    api.scriptByRole({
      'gap-finder': reply.json({ newSubtopics: [draft('music!', ['music']), draft('Film', ['film'])], thinSubtopicIds: [], confidence: 0.6, reason: 'r' }),
    });
    const plan = { classification: 'breadth' as const, subtopics: [{ id: 'music', title: 'Music', query: 'music', facetTerms: ['music'], excludeTerms: [], origin: 'plan' as const }] };
    const out = await engine().refine({ runId: 'r', topic: 'AI in creative industries', plan, round: 2, findings: [], evidence: { music: 1 }, maxNewTasks: 3 });
    expect(out.newSubtopics.map((s) => s.id)).toEqual(['film']);
    expect(out.decisions.map((d) => d.decisionType)).toContain('brief-deduplicated');
  });
});

describe('AnthropicCoordinatorEngine.replan', () => {
  it('sends a re-plan prompt with what was found and what failed, and takes only new subtopics', async () => {
    api.reset();
    api.scriptByRole({ 'gap-finder': reply.json({ newSubtopics: [draft('Film', ['film']), draft('Music', ['music'])], thinSubtopicIds: ['music'], confidence: 0.7, reason: 'a new angle' }) });
    const plan = {
      classification: 'breadth' as const,
      subtopics: [
        { id: 'music', title: 'Music', query: 'music', facetTerms: ['music'], excludeTerms: [], origin: 'plan' as const },
        { id: 'games', title: 'Games', query: 'games', facetTerms: ['games'], excludeTerms: [], origin: 'plan' as const },
      ],
    };
    const findings = [{ id: 'f1', claim: 'AI composes film scores.', quote: 'AI composes', sourceId: 'web-1', subtopicId: 'music' }];
    const out = await engine().replan({ runId: 'r', topic: 'AI in creative industries', plan, round: 2, findings, evidence: { music: 1, games: 0 }, maxNewTasks: 3 });
    // 'Music' is the plan's own subtopic again: dropped, not re-sent as music-2.
    expect(out.newSubtopics.map((s) => s.id)).toEqual(['film']);
    expect(out.thinSubtopicIds).toEqual([]);
    expect(out.decisions.at(-1)).toMatchObject({ decisionType: 'replan', level: 'L2' });
    const sent = JSON.stringify(api.accepted.at(-1)!.body.messages);
    expect(sent).toContain('the run pivots');
    expect(sent).toContain('AI composes film scores.');
    expect(sent).toContain('What failed (subtopics that found nothing):\\n- games: Games');
  });
});

describe('AnthropicCoordinatorEngine.judgeVerdict', () => {
  const input: JudgeInput = {
    goal: 'AI in creative industries',
    round: 3,
    lastActions: ['search music → 0 new findings'],
    yield: { newFindings: 0, newSources: 0, novelty: 0.05 },
    stateSummary: 'budget 40% left',
    signalHistory: { pivots: 0 },
  };

  it('returns {signal, confidence, reason} from the judge model', async () => {
    api.scriptByRole({ judge: reply.json({ signal: 'stop', confidence: 0.85, reason: 'yield has dried up' }) });
    const v = await engine().judgeVerdict(input);
    expect(v).toMatchObject({ signal: 'stop', confidence: 0.85, reason: 'yield has dried up' });
    const req = api.accepted[0]!.body;
    expect(req.model).toBe('claude-haiku-5-5');
    expect(req.output_config.format.schema.properties.signal).toEqual({ enum: ['continue', 'stop', 'pivot'] });
  });

  it('asks at low effort with max_tokens that leave room to think: the verdict does not stop at max_tokens, and its thinking is counted', async () => {
    api.scriptByRole({ judge: reply.json({ signal: 'continue', confidence: 0.7, reason: 'still finding sources' }) });
    const v = await engine().judgeVerdict(input);
    expect(v.signal).toBe('continue');
    expect(api.accepted).toHaveLength(1);
    const req = api.accepted[0]!;
    expect(req.body.output_config.effort).toBe('low');
    expect(req.body.max_tokens).toBeGreaterThan(4000);
    expect(req.stopReason).toBe('end_turn');
    expect(v.usage.thinkingTokens).toBe(req.usage.output_tokens_details.thinking_tokens);
    expect(v.usage.thinkingTokens).toBeGreaterThan(0);
  });

  it('an invalid verdict is retried once, then fails clearly (the judge counts it as continue); a confidence above 1 is clamped', async () => {
    api.scriptByRole({ judge: [reply.json({ signal: 'halt', confidence: 2, reason: 'x' }), reply.json({ signal: 'halt', confidence: 1, reason: 'x' })] });
    await expect(engine().judgeVerdict(input)).rejects.toThrow(/Anthropic judge: judge verdict: model output invalid: signal/);
    expect(api.accepted).toHaveLength(2);
    api.reset();
    api.scriptByRole({ judge: reply.json({ signal: 'stop', confidence: 1.5, reason: 'x' }) });
    expect(await engine().judgeVerdict(input)).toMatchObject({ signal: 'stop', confidence: 1 });
  });
});
