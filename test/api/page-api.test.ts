/** What the web page reads besides a run and its report: corpus names, recent runs, a run's sources and coverage, and the page itself. */
import { CorpusListSchema, RunCoverageSchema, RunListSchema, SourceSchema } from '@orrery/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Stack, startStack } from '../support/stack';

describe('the API the web page reads', () => {
  let stack: Stack;
  let done: string;
  let cancelled: string;
  beforeAll(async () => {
    stack = await startStack('page-api', { workers: 1, workerEnv: { SIMULATED_LATENCY_MS: '2000' } });
    done = (await stack.client.submit({ topic: 'How is the Kestrel River managed?' })).id;
    await stack.follow(done);
    cancelled = (await stack.client.submit({ topic: 'a slow simulated topic', engine: 'simulated' })).id;
    await stack.client.cancel(cancelled);
  });
  afterAll(async () => stack?.stop());

  const get = async (path: string) => {
    const res = await fetch(`${stack.coordinator.url}${path}`);
    return { status: res.status, body: (await res.json()) as unknown };
  };

  it('lists the corpus names a request may use, and the default', async () => {
    const { status, body } = await get('/v1/corpora');
    expect(status).toBe(200);
    const list = CorpusListSchema.parse(body);
    expect(list.default).toBe('kestrel');
    expect(list.corpora).toEqual(expect.arrayContaining(['kestrel', 'sotu']));
  });

  it('lists recent runs newest first, with status, usage and the citations of a finished report; filters by status', async () => {
    const all = RunListSchema.parse((await get('/v1/research')).body).runs;
    expect(all.map((r) => r.id)).toEqual([cancelled, done]);
    const report = await stack.client.report(done);
    expect(all[1]).toMatchObject({ id: done, status: 'done', topic: 'How is the Kestrel River managed?', engine: 'corpus', corpus: 'kestrel', citations: report.sources.length });
    expect(all[1]!.citations).toBeGreaterThan(0);
    expect(all[0]).toMatchObject({ id: cancelled, status: 'cancelled', citations: null });

    expect(RunListSchema.parse((await get('/v1/research?status=cancelled')).body).runs.map((r) => r.id)).toEqual([cancelled]);
    expect(RunListSchema.parse((await get('/v1/research?status=needs_review')).body).runs).toEqual([]);
    expect(RunListSchema.parse((await get('/v1/research?limit=1')).body).runs.map((r) => r.id)).toEqual([cancelled]);
    for (const bad of ['status=finished', 'limit=0', 'limit=201', 'limit=x', 'owner=me']) {
      const res = await get(`/v1/research?${bad}`);
      expect(res.status, bad).toBe(400);
      expect(JSON.stringify(res.body), bad).toMatch(/status|limit|owner/);
    }
  });

  it('serves a source the run retrieved, with the text its cited quote occurs in; 404 for one it did not', async () => {
    const report = await stack.client.report(done);
    const cited = report.sections[0]!.paragraphs[0]!.citations[0]!;
    const { status, body } = await get(`/v1/research/${done}/sources/${encodeURIComponent(cited.sourceId)}`);
    expect(status).toBe(200);
    const source = SourceSchema.parse(body);
    expect(source.id).toBe(cited.sourceId);
    expect(source.text).toContain(cited.quote);
    expect((await get(`/v1/research/${done}/sources/no-such-source`)).status).toBe(404);
    expect((await get(`/v1/research/${cancelled}/sources/${encodeURIComponent(cited.sourceId)}`)).status).toBe(404);
    expect((await get(`/v1/research/00000000-0000-4000-8000-000000000000/sources/x`)).status).toBe(404);
  });

  it('gives the coverage per subtopic the report ends with, and the share the last round measured', async () => {
    const coverage = RunCoverageSchema.parse((await get(`/v1/research/${done}/coverage`)).body);
    const [report, run] = await Promise.all([stack.client.report(done), stack.client.run(done)]);
    expect(coverage.subtopics).toEqual(report.coverage.subtopics);
    expect(coverage.share).toBe(run.rounds.at(-1)!.coverage);
    expect(coverage.target).toBe(0.8);
    const before = RunCoverageSchema.parse((await get(`/v1/research/${cancelled}/coverage`)).body);
    expect(before.share).toBeNull();
  });

  it('says in each result verdict which verdict it was', async () => {
    const decisions = (await get(`/v1/research/${done}/decisions`)).body as Array<{ decisionType: string; signals: Record<string, unknown>; conclusion: string }>;
    const verdicts = decisions.filter((d) => d.decisionType === 'result-verdict');
    expect(verdicts.length).toBeGreaterThan(0);
    for (const v of verdicts) expect(v.conclusion.startsWith(`${v.signals.verdict}:`)).toBe(true);
  });

  it('serves the page at / under a strict content security policy', async () => {
    const page = await fetch(`${stack.coordinator.url}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    const csp = page.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("style-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
    const html = await page.text();
    expect(html).toContain('<script type="module" src="/assets/main.js"></script>');
    // No inline script or style in the page itself.
    expect(html.match(/<script(?![^>]*\bsrc=)[^>]*>/g)).toBeNull();
    expect(html).not.toMatch(/<style|style=/);
    const js = await fetch(`${stack.coordinator.url}/assets/main.js`);
    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toMatch(/javascript/);
    const css = await fetch(`${stack.coordinator.url}/assets/styles.css`);
    expect(css.headers.get('content-type')).toMatch(/text\/css/);
    expect((await fetch(`${stack.coordinator.url}/assets/no-such-file.js`)).status).toBe(404);
    expect((await fetch(`${stack.coordinator.url}/assets/../package.json`)).status).toBe(404);
  });
});
