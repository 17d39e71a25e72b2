/**
 * A research run against a local model server that speaks the Messages API (Ollama, llama.cpp's server, vLLM),
 * detected at startup (ANTHROPIC_PROFILE unset, so auto): the fake in `local` mode refuses server tools, `output_config` and `cache_control` with
 * 400s, as such servers do. The run must end done with a cited report from the corpus, every request accepted.
 */
import { SearchResultSchema } from '@orrery/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { MessagesApi } from '../../libs/claude-engine/src/messages-client';
import { FREE_PRICES } from '../../libs/claude-engine/src/pricing';
import { LOCAL_PROFILE } from '../../libs/claude-engine/src/server-profile';
import { structuredCall } from '../../libs/claude-engine/src/structured';
import { FakeMessagesApi, reply } from '../support/fake-messages-api';
import { researchScript } from '../support/fake-research-script';
import { type Stack, startStack } from '../support/stack';
import { waitFor } from '../support/service-processes';

describe('research runs on a local model server (its profile detected)', () => {
  let api: FakeMessagesApi;
  let stack: Stack;

  beforeAll(async () => {
    api = await FakeMessagesApi.start({ server: 'local' });
    api.scriptByRole(researchScript({ rounds: 1 }));
    stack = await startStack('local-model-run', {
      workers: 1,
      // No CLAUDE_DEFAULT_CORPUS: without web tools the run takes DEFAULT_CORPUS (kestrel in the stack).
      // No ANTHROPIC_PROFILE: both apps ask the server (it answers Ollama's /api/version) and take the local profile.
      env: { ENGINE: 'anthropic', ANTHROPIC_API_KEY: 'ollama', ANTHROPIC_BASE_URL: api.baseURL, ANTHROPIC_MODEL: 'qwen3:32b', ANTHROPIC_SUBAGENT_MODEL: 'qwen3:8b', ANTHROPIC_JUDGE_MODEL: 'qwen3:8b', ANTHROPIC_MAX_RETRIES: '1' },
    });
  }, 90_000);
  afterAll(async () => {
    await stack?.stop();
    await api?.close();
  });

  it('ends done with a cited report from the corpus; no request uses a field the server refuses; costs nothing', async () => {
    const { id } = await stack.client.submit({ topic: 'Kestrel River floods' });
    const events = await stack.follow(id);
    expect(events.at(-1), JSON.stringify(events.filter((e) => e.type === 'run.finished' || e.type === 'task.failed'))).toMatchObject({ type: 'run.finished', status: 'done' });

    // Every request was accepted: no server tool, no output_config, no cache_control, no thinking params.
    expect(api.rejected.map((r) => r.validationError)).toEqual([]);
    // Each app asked the server what it is before building an engine; the rest are Messages API requests.
    expect(api.probes.filter((p) => p.path === '/api/version' && p.status === 200).length).toBeGreaterThanOrEqual(2);
    const messages = api.requests;
    expect(messages.length).toBeGreaterThan(0);
    const roles = new Set(messages.map((r) => r.role));
    for (const role of ['planner', 'researcher', 'extractor', 'writer', 'citer']) expect(roles, `no ${role} request`).toContain(role);
    // The lead (the coordinator's model) writes the report here too, told its form and language, and the schema of
    // its answer travels in the prompt.
    const writer = messages.find((r) => r.role === 'writer')!;
    expect(writer.body.model).toBe('qwen3:32b');
    expect(JSON.stringify(writer.body.messages)).toMatch(/Write the whole report in English \(en\)[\s\S]*Form: /);
    expect(JSON.stringify(writer.body.system)).toContain('matching this JSON schema');
    for (const r of messages) {
      expect(r.body.thinking, `request #${r.index} (${r.role})`).toBeUndefined();
      expect(['qwen3:32b', 'qwen3:8b']).toContain(r.body.model);
    }
    // Structured output travels in the prompt: the planner's system prompt carries the JSON schema.
    const planner = messages.find((r) => r.role === 'planner')!;
    expect(JSON.stringify(planner.body.system)).toContain('matching this JSON schema');
    // The researcher had the corpus tools and no web.
    const researcher = messages.find((r) => r.role === 'researcher')!;
    const tools = (researcher.body.tools ?? []).map((t: { name: string }) => t.name);
    expect(tools).toContain('search_corpus');
    expect(tools).not.toContain('web_search');

    const report = await stack.client.report(id);
    const returned = new Set<string>();
    for (const job of (await stack.jobs('subagents')).filter((j) => j.name === 'search' && j.data.runId === id)) {
      const r = SearchResultSchema.parse(job.returnvalue);
      expect(r.stats['fallbacks'] ?? 0).toBe(0);
      for (const s of r.sources) returned.add(s.id);
    }
    const cited = report.sections.flatMap((s) => s.paragraphs.flatMap((p) => p.citations.map((c) => c.sourceId)));
    expect(cited.length).toBeGreaterThan(0);
    // Cited sentence by sentence, the summary too.
    expect(report.summaryCitations?.length).toBeGreaterThan(0);
    expect(report.sections.some((s) => s.paragraphs.some((p) => p.sentences?.some((x) => x.citations.length > 0)))).toBe(true);
    for (const c of cited) expect(returned.has(c), `cites ${c}, never returned`).toBe(true);
    expect(report.metadata.engine).toBe('anthropic');
    const run = await stack.client.run(id);
    expect(run.usage.inputTokens).toBeGreaterThan(0);
    expect(run.usage.costUsd).toBe(0);
    expect(run.usage.cacheReadTokens + run.usage.cacheWriteTokens).toBe(0);
  }, 180_000);

  it('a dollar budget does not refuse a local run: its tasks are reserved at the server’s price, 0', async () => {
    // Priced from the table, the reviewed plan's tasks would reserve dollars this budget does not have: the approval is refused.
    const { id } = await stack.client.submit({ topic: 'Kestrel River floods', review: 'plan', budget: { maxCostUsd: 0.0001 } });
    await waitFor(async () => (await stack.client.run(id)).status === 'needs_review', 60_000, 'the plan to be proposed');
    const res = await fetch(`${stack.coordinator.url}/v1/research/${id}/decision`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ action: 'continue' }) });
    expect(res.status, await res.clone().text()).toBe(202);
    expect(await stack.client.waitForEnd(id)).toBe('done');
    const run = await stack.client.run(id);
    expect(run.counters.tasksDispatched).toBeGreaterThan(1);
    expect(run.budgetLedger.reservations['round-1']?.granted.costUsd).toBe(0);
    expect(run.usage.costUsd).toBe(0);
  }, 180_000);

  it('a follow-up: the planner is shown what the parent found, and the report cites the parent’s sources again', async () => {
    const { id: parentId } = await stack.client.submit({ topic: 'Kestrel River floods' });
    expect(await stack.client.waitForEnd(parentId)).toBe('done');
    const parentCited = new Set((await stack.client.report(parentId)).sources.map((s) => s.id));
    const before = api.requests.length;
    const res = await fetch(`${stack.coordinator.url}/v1/research/${parentId}/followups`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ question: 'Tell me more about Kestrel River floods' }) });
    expect(res.status).toBe(202);
    const { id } = (await res.json()) as { id: string };
    expect(await stack.client.waitForEnd(id)).toBe('done');
    const planner = api.requests.slice(before).find((r) => r.role === 'planner')!;
    expect(JSON.stringify(planner.body.messages)).toContain('known findings');
    const cited = new Set((await stack.client.report(id)).sources.map((s) => s.id));
    expect([...parentCited].filter((s) => cited.has(s)).length).toBeGreaterThanOrEqual(parentCited.size / 2);
  }, 180_000);

  it('structured output through the prompt: an invalid reply is retried once with the zod errors, a fenced one is read', async () => {
    const local = await FakeMessagesApi.start({ server: 'local' });
    try {
      local.enqueue(reply.text('{"count": "three"}'), reply.text('```json\n{"count": 3}\n```'));
      const res = await structuredCall({
        api: new MessagesApi({ client: local.client({ maxRetries: 0 }), prices: FREE_PRICES, profile: LOCAL_PROFILE }),
        model: 'qwen3:8b',
        system: 'Orrery role: judge.',
        user: 'How many?',
        schema: z.object({ count: z.number() }),
        purpose: 'count',
        maxTokens: 256,
      });
      expect(res.value).toEqual({ count: 3 });
      expect(res.requests).toBe(2);
      expect(local.rejected).toEqual([]);
      const [first, second] = local.requests;
      expect(JSON.stringify(first!.body.system)).toContain('matching this JSON schema');
      expect(first!.body.output_config).toBeUndefined();
      expect(JSON.stringify(second!.body.messages)).toContain('Your reply failed validation');
      expect(res.decisions.map((d) => d.decisionType)).toEqual(['structured-retry']);
    } finally {
      await local.close();
    }
  });
});
