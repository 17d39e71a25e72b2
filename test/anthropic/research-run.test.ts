/**
 * Whole runs with ENGINE=anthropic: the fake Messages API, a real coordinator process and a real worker process on
 * Redis. Assertions are on what the fake server received: isolation between runs and between tasks, redaction,
 * protocol validity; and on what the service made of it: a cited report, token usage, logged decisions, fallback.
 */
import { type Decision, type Run, SearchResultSchema, type StoredRunEvent } from '@orrery/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redact } from '../../libs/claude-engine/src/redaction/redact';
import { apiError, FakeMessagesApi, type FakeHandler, type RecordedRequest, reply } from '../support/fake-messages-api';
import { researchScript } from '../support/fake-research-script';
import { type Stack, startStack } from '../support/stack';

const PII = {
  a: { email: 'alice.smith@example.com', card: '4111 1111 1111 1111' },
  b: { email: 'bob.jones@example.org', card: '5555-5555-5555-4444' },
  c: { email: 'carol@example.net', card: '4012 8888 8888 1881' },
  d: { email: 'dave@example.com', card: '4242 4242 4242 4242' },
};
const MARK = { a: 'MARKERALPHA7Q', b: 'MARKERBRAVO3Z', c: 'MARKERCHARLIE5K', d: 'MARKERDELTA2W' };
const RAW_PII = Object.values(PII).flatMap((p) => [p.email, p.card, p.card.replace(/\D/g, '')]);

const topicOf = (k: keyof typeof MARK, subject: string) => `Kestrel River ${subject} ${MARK[k]}; contact ${PII[k].email} or card ${PII[k].card}`;

/** The request body as text (every string the service sent). */
const bodyText = (r: RecordedRequest): string => r.raw;
const markersIn = (r: RecordedRequest): string[] => Object.values(MARK).filter((m) => bodyText(r).includes(m));
const decisionsOf = (events: StoredRunEvent[]): Decision[] => events.flatMap((e) => (e.type === 'decision' ? [e.decision] : []));
const usageTotal = (u: Run['usage']) => u.inputTokens + u.outputTokens + u.cacheReadTokens + u.cacheWriteTokens;

/**
 * Run C's planner answers invalid output twice and its researcher refuses: both sides must fall back to the corpus
 * engine. Run D's researchers are overloaded (529) on their first attempt, and the extractor of its "background"
 * subtopic gets a 403 (a key without permission: configuration, not a request another engine could answer): the
 * first is retried by the job backoff, the second fails for good at once.
 */
function scriptWithFailingRuns(): Record<string, FakeHandler> {
  const base = researchScript({ rounds: 1 });
  const runOf = (req: Parameters<FakeHandler>[0]) => Object.entries(MARK).find(([, m]) => JSON.stringify(req.messages).includes(m))?.[0];
  const seen = new Map<string, number>();
  return {
    ...base,
    planner: (req) => (runOf(req) === 'c' ? reply.json({ classification: 'sideways', subtopics: 'none' }) : base['planner']!(req)),
    researcher: (req) => {
      if (runOf(req) === 'c') return reply.refusal('general_harms', 'Declined.');
      if (runOf(req) === 'd' && req.messages.length === 1) {
        const brief = JSON.stringify(req.messages[0]);
        const n = (seen.get(brief) ?? 0) + 1;
        seen.set(brief, n);
        // ANTHROPIC_MAX_RETRIES=1: the first job attempt sends twice (the engine's retry), both overloaded; the second attempt goes through.
        if (n <= 2) return apiError.overloaded();
      }
      return base['researcher']!(req);
    },
    extractor: (req) =>
      runOf(req) === 'd' && /Objective: [^\n]*background/.test(JSON.stringify(req.messages[0]).replace(/\\n/g, '\n'))
        ? { kind: 'error', status: 403, errorType: 'permission_error', message: 'Your API key does not have permission to use the specified resource.' }
        : base['extractor']!(req),
  };
}

describe('research runs with ENGINE=anthropic against the fake Messages API', () => {
  let api: FakeMessagesApi;
  let stack: Stack;

  beforeAll(async () => {
    api = await FakeMessagesApi.start();
    api.scriptByRole(scriptWithFailingRuns());
    // Run D tests the job's own backoff on a 529 each task meets; its overloaded answers in a row would open the
    // provider's breaker (tested in provider-outage.test.ts), so the threshold is out of reach here.
    stack = await startStack('anthropic-run', {
      workers: 2,
      env: { ENGINE: 'anthropic', CLAUDE_DEFAULT_CORPUS: 'kestrel', ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: api.baseURL, ANTHROPIC_MAX_RETRIES: '1', TASK_ATTEMPTS: '3', TASK_BACKOFF_MS: '200', BREAKER_THRESHOLD: '1000' },
      workerEnv: { SUBAGENT_CONCURRENCY: '2' },
    });
  }, 90_000);
  afterAll(async () => {
    await stack?.stop();
    await api?.close();
  });

  it('two concurrent runs: each request carries only its own run and task, PII never leaves, the report is cited and usage counted', async () => {
    const topics = { a: topicOf('a', 'floods'), b: topicOf('b', 'dams') };
    const [ra, rb] = await Promise.all([stack.client.submit({ topic: topics.a }), stack.client.submit({ topic: topics.b })]);
    const [ea, eb] = await Promise.all([stack.follow(ra.id), stack.follow(rb.id)]);
    for (const events of [ea, eb]) expect(events.at(-1), JSON.stringify(events.filter((e) => e.type === 'run.finished' || e.type === 'task.failed'))).toMatchObject({ type: 'run.finished', status: 'done' });

    const requests = api.requests.filter((r) => markersIn(r).some((m) => m === MARK.a || m === MARK.b));
    // Every request the service made was valid for the Messages API (alternation, tool results, no orphans, schemas).
    expect(api.rejected.map((r) => r.validationError)).toEqual([]);
    expect(requests.every((r) => r.status === 200)).toBe(true);
    const roles = new Set(requests.map((r) => r.role));
    for (const role of ['planner', 'coverage-critic', 'researcher', 'extractor', 'writer']) expect(roles, `no ${role} request`).toContain(role);

    // No request of one run contains the other run's marker: each names exactly one run.
    for (const r of requests) expect(markersIn(r), `request #${r.index} (${r.role})`).toHaveLength(1);
    // Redaction: no raw PII in any request; the markers that replaced it are there.
    for (const r of api.requests) for (const raw of RAW_PII) expect(bodyText(r).includes(raw), `request #${r.index} (${r.role}) holds raw PII`).toBe(false);
    expect(requests.every((r) => bodyText(r).includes('[REDACTED:email]') && bodyText(r).includes('[REDACTED:card]'))).toBe(true);

    // Each research conversation holds its own task's payload and no other task's.
    const runs = { a: ra.id, b: rb.id };
    const searchJobs = (await stack.jobs('subagents')).filter((j) => j.name === 'search');
    const tasks = searchJobs.map((j) => ({
      id: j.id!,
      runId: j.data.runId as string,
      objective: redact(j.data.context.objective as string).text,
      query: redact(j.data.query as string).text,
    }));
    expect(tasks.filter((t) => t.runId === runs.a).length).toBeGreaterThan(1);
    expect(tasks.filter((t) => t.runId === runs.b).length).toBeGreaterThan(1);
    const research = requests.filter((r) => r.role === 'researcher');
    for (const r of research) {
      const first = JSON.stringify(r.body.messages[0]);
      const own = tasks.filter((t) => first.includes(JSON.stringify(`Research objective: ${t.objective}`).slice(1, -1)));
      expect(own, `request #${r.index}: its task`).toHaveLength(1);
      expect(first).toContain(JSON.stringify(`Search query to start from: ${own[0]!.query}`).slice(1, -1));
      const mark = own[0]!.runId === runs.a ? MARK.a : MARK.b;
      expect(markersIn(r)).toEqual([mark]);
      for (const other of tasks.filter((t) => t !== own[0])) expect(bodyText(r).includes(JSON.stringify(other.objective).slice(1, -1))).toBe(false);
    }
    // Every search task of both runs had its own conversation.
    for (const t of tasks) expect(research.some((r) => JSON.stringify(r.body.messages[0]).includes(JSON.stringify(t.objective).slice(1, -1))), t.id).toBe(true);

    let cacheWrites = 0;
    for (const [key, id] of Object.entries(runs) as Array<[keyof typeof runs, string]>) {
      const run = await stack.client.run(id);
      const report = await stack.client.report(id);
      // The report cites only sources the run's own subagents returned (the ledger), and at least one.
      const returned = new Set<string>();
      for (const job of searchJobs.filter((j) => j.data.runId === id)) {
        const result = SearchResultSchema.parse(job.returnvalue);
        for (const s of result.sources) returned.add(s.id);
        // Usage per task, cache reads and writes included (the fake caches system prompt and tools).
        expect(result.usage.inputTokens).toBeGreaterThan(0);
        expect(result.usage.outputTokens).toBeGreaterThan(0);
        expect(result.usage.cacheReadTokens + result.usage.cacheWriteTokens).toBeGreaterThan(0);
      }
      const cited = report.sections.flatMap((s) => s.paragraphs.flatMap((p) => p.citations.map((c) => c.sourceId)));
      expect(cited.length, `run ${key} cites nothing`).toBeGreaterThan(0);
      for (const c of cited) expect(returned.has(c), `run ${key} cites ${c}, never returned`).toBe(true);
      for (const s of report.sources) expect(returned.has(s.id)).toBe(true);
      // Per run: summed from every step and task, with cache tokens, and shown in the report metadata.
      expect(run.usage.inputTokens).toBeGreaterThan(0);
      expect(run.usage.outputTokens).toBeGreaterThan(0);
      // The fake caches system prompt + tools per prefix across all requests, as the API does: whichever run sent a
      // prefix first wrote it, so a run may only read. Both kinds must reach the run's count (checked over both runs).
      expect(run.usage.cacheReadTokens).toBeGreaterThan(0);
      cacheWrites += run.usage.cacheWriteTokens;
      expect(report.metadata.usage).toEqual(run.usage);
      const taskTotal = searchJobs.filter((j) => j.data.runId === id).reduce((n, j) => n + usageTotal(SearchResultSchema.parse(j.returnvalue).usage), 0);
      expect(usageTotal(run.usage)).toBeGreaterThan(taskTotal);
      expect(report.metadata.engine).toBe('anthropic');
    }
    expect(cacheWrites).toBeGreaterThan(0);

    // Redaction is a logged decision, from the planner and from the tasks, with counts only.
    for (const events of [ea, eb]) {
      const redactions = decisionsOf(events).filter((d) => d.decisionType === 'redaction');
      expect(redactions.some((d) => d.signals['origin'] === 'subagent')).toBe(true);
      expect(redactions.some((d) => d.signals['origin'] === undefined)).toBe(true);
      for (const d of redactions) {
        expect(d.signals['email']).toBeGreaterThanOrEqual(1);
        expect(d.signals['card']).toBeGreaterThanOrEqual(1);
      }
      for (const d of decisionsOf(events)) for (const raw of RAW_PII) expect(JSON.stringify(d).includes(raw), `decision ${d.decisionType} holds raw PII`).toBe(false);
    }
  }, 180_000);

  it('invalid planner output and a refusing researcher fall back to the corpus engine, logged, and the run ends done', async () => {
    const { id } = await stack.client.submit({ topic: topicOf('c', 'fisheries') });
    const events = await stack.follow(id);
    expect(events.at(-1)).toMatchObject({ type: 'run.finished', status: 'done' });
    const mine = api.requests.filter((r) => markersIn(r).includes(MARK.c));
    expect(mine.length).toBeGreaterThan(0);
    for (const r of mine) expect(markersIn(r)).toEqual([MARK.c]);
    expect(api.rejected).toEqual([]);
    // The planner was asked twice (the retry carried the validation error), then the corpus engine planned.
    const planner = mine.filter((r) => r.role === 'planner');
    expect(planner).toHaveLength(2);
    expect(bodyText(planner[1]!)).toContain('Your reply failed validation');

    const decisions = decisionsOf(events);
    const fallbacks = decisions.filter((d) => d.decisionType === 'fallback');
    expect(fallbacks.some((d) => d.signals['step'] === 'plan' && d.signals['fallbackEngine'] === 'corpus')).toBe(true);
    const taskFallbacks = fallbacks.filter((d) => d.signals['origin'] === 'subagent');
    expect(taskFallbacks.length).toBeGreaterThan(0);
    for (const d of taskFallbacks) expect(d).toMatchObject({ level: 'L2', signals: { fallbackEngine: 'corpus' } });
    expect(decisions.some((d) => d.decisionType === 'refusal' && d.signals['origin'] === 'subagent')).toBe(true);
    expect(decisions.some((d) => d.decisionType === 'structured-retry')).toBe(true);

    // The corpus engine found the evidence; the report still cites only what the run's tasks returned.
    const report = await stack.client.report(id);
    const returned = new Set<string>();
    for (const job of (await stack.jobs('subagents')).filter((j) => j.name === 'search' && j.data.runId === id)) {
      const r = SearchResultSchema.parse(job.returnvalue);
      expect(r.stats['fallbacks']).toBe(1);
      for (const s of r.sources) returned.add(s.id);
    }
    const cited = report.sections.flatMap((s) => s.paragraphs.flatMap((p) => p.citations.map((c) => c.sourceId)));
    expect(cited.length).toBeGreaterThan(0);
    for (const c of cited) expect(returned.has(c)).toBe(true);
    const run = await stack.client.run(id);
    expect(run.usage.inputTokens).toBeGreaterThan(0);
  }, 120_000);

  it('a 529 after the engine retries is retried by the job backoff; a 403 fails the task at once; the run still ends done', async () => {
    const { id } = await stack.client.submit({ topic: topicOf('d', 'navigation') });
    const events = await stack.follow(id);
    expect(events.at(-1)).toMatchObject({ type: 'run.finished', status: 'done' });
    const jobs = (await stack.jobs('subagents')).filter((j) => j.name === 'search' && j.data.runId === id);
    const background = jobs.filter((j) => /background/.test(j.data.context.objective));
    const others = jobs.filter((j) => !background.includes(j));
    expect(background).toHaveLength(1);
    expect(others.length).toBeGreaterThan(0);
    // Attempt 1 met the 529s (retryable, backed off); attempt 2 met the 403: UnrecoverableError, no third attempt of 3.
    const failed = background[0]!;
    expect(await failed.getState()).toBe('failed');
    expect(failed.attemptsMade).toBe(2);
    expect(failed.failedReason).toMatch(/HTTP 403.*not retryable/);
    // 529 twice (the SDK's own retry included), then the job's second attempt succeeded.
    for (const j of others) {
      expect(await j.getState()).toBe('completed');
      expect(j.attemptsMade).toBe(2);
      const { logs } = await stack.queues.subagents.getJobLogs(j.id!);
      expect(logs.some((l) => /will retry with backoff: .*overloaded \(529\)/.test(l))).toBe(true);
    }
    const overloaded = api.requests.filter((r) => r.status === 529 && markersIn(r).includes(MARK.d));
    expect(overloaded.length).toBe(2 * (jobs.length));
    // The run records the failed task.
    expect(events.some((e) => e.type === 'task.failed' && e.taskId === failed.id)).toBe(true);
  }, 120_000);
});
