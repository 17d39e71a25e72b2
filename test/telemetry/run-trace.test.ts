/**
 * One trace per run, across processes: a coordinator and a worker process export OTLP/HTTP (JSON) to a receiver in
 * the test. The run's spans share one trace id; the worker's job span is a child of the coordinator's enqueue span
 * (the W3C context travels in the job), and the model calls carry the GenAI attributes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeMessagesApi } from '../support/fake-messages-api';
import { researchScript } from '../support/fake-research-script';
import { OtlpReceiver, type ReceivedSpan } from '../support/otlp-receiver';
import { waitFor } from '../support/service-processes';
import { type Stack, startStack } from '../support/stack';
import { WebhookReceiver } from '../support/webhook-receiver';

/** The trace as an indented tree, children in start order: `service  name  key attributes`. */
function spanTree(spans: ReceivedSpan[]): string {
  const children = new Map<string | undefined, ReceivedSpan[]>();
  const ids = new Set(spans.map((s) => s.spanId));
  for (const s of spans) {
    const parent = s.parentSpanId && ids.has(s.parentSpanId) ? s.parentSpanId : undefined;
    children.set(parent, [...(children.get(parent) ?? []), s]);
  }
  const shown = ['gen_ai.tool.name', 'gen_ai.tool.type', 'gen_ai.request.model', 'db.system.name', 'db.operation.name', 'http.response.status_code', 'orrery.step'];
  const lines: string[] = [];
  const walk = (parent: string | undefined, depth: number): void => {
    for (const s of (children.get(parent) ?? []).sort((a, b) => a.start - b.start)) {
      const attrs = shown.filter((k) => s.attributes[k] !== undefined).map((k) => `${k}=${String(s.attributes[k])}`);
      lines.push(`${'  '.repeat(depth)}${s.name} [${s.service.replace('orrery-', '')}]${attrs.length ? ` ${attrs.join(' ')}` : ''}`);
      walk(s.spanId, depth + 1);
    }
  };
  walk(undefined, 0);
  return lines.join('\n');
}

describe('traces of a run across the coordinator and a worker', () => {
  let api: FakeMessagesApi;
  let receiver: OtlpReceiver;
  let stack: Stack;
  let hooks: WebhookReceiver;

  beforeAll(async () => {
    receiver = await OtlpReceiver.start();
    hooks = await WebhookReceiver.start();
    api = await FakeMessagesApi.start();
    api.scriptByRole(researchScript({ rounds: 1 }));
    const otel = { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, OTEL_BSP_SCHEDULE_DELAY: '200' };
    stack = await startStack('run-trace', {
      workers: 1,
      env: { ENGINE: 'anthropic', CLAUDE_DEFAULT_CORPUS: 'kestrel', ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: api.baseURL, ANTHROPIC_MAX_RETRIES: '1', WEBHOOK_ALLOWED_HOSTS: `127.0.0.1:${hooks.port}`, ...otel },
    });
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
    await api?.close();
    await receiver?.close();
    await hooks?.close();
  });

  it('exports one trace from POST to the model calls, with parent links across the queue', async () => {
    const { id } = await stack.client.submit({ topic: 'Kestrel River floods', webhook: { url: hooks.url('/done?token=secret') } });
    const events = await stack.follow(id);
    expect(events.at(-1)).toMatchObject({ type: 'run.finished', status: 'done' });
    const run = await stack.client.run(id);
    expect(run.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-0[01]$/);
    const traceId = run.traceparent!.split('-')[1];

    const ofRun = (): ReceivedSpan[] => receiver.spans.filter((s) => s.traceId === traceId);
    // Each process exports on its own schedule: wait for the finalize step's span and one span per task run.
    const tasksRun = run.counters.tasksCompleted + run.counters.tasksFailed;
    // The run.done webhook is delivered after the run ends: its POST span comes last.
    await waitFor(
      () => ofRun().some((s) => s.name === 'step finalize') && ofRun().filter((s) => s.name.startsWith('task ')).length >= tasksRun && ofRun().some((s) => s.name === 'POST' && s.kind === 3),
      20_000,
      'the spans of every step and task, and the webhook delivery',
    );
    const spans = ofRun();
    const byId = new Map(spans.map((s) => [s.spanId, s]));
    expect(receiver.rejected).toEqual([]);
    console.info(`trace ${traceId}:\n${spanTree(spans)}`);

    // The REST request is the root.
    const root = spans.find((s) => s.name === 'POST /v1/research');
    expect(root, spans.map((s) => `${s.service} ${s.name}`).join('\n')).toBeDefined();
    expect(root!.service).toBe('orrery-coordinator');
    expect(root!.parentSpanId).toBeUndefined();

    // Every coordinator step of the run is in the trace.
    const steps = spans.filter((s) => s.name.startsWith('step '));
    expect(new Set(steps.map((s) => s.name))).toEqual(new Set(['step plan', 'step round', 'step finalize']));
    for (const s of steps) expect(s).toMatchObject({ service: 'orrery-coordinator', attributes: { 'orrery.run_id': id } });

    // Tasks ran in the worker process, each inside BullMQ's consumer span, whose parent is the coordinator's producer span.
    const tasks = spans.filter((s) => s.name.startsWith('task '));
    expect(tasks.length).toBeGreaterThan(1);
    for (const task of tasks) {
      expect(task.service).toBe('orrery-worker');
      const consumer = byId.get(task.parentSpanId!);
      expect(consumer, `parent of ${task.name}`).toMatchObject({ service: 'orrery-worker' });
      const producer = byId.get(consumer!.parentSpanId!);
      expect(producer, `parent of ${consumer!.name}`).toMatchObject({ service: 'orrery-coordinator' });
    }

    // Model calls: in both processes, with the GenAI attributes and the priced cost.
    const calls = spans.filter((s) => s.name.startsWith('chat '));
    expect(new Set(calls.map((c) => c.service))).toEqual(new Set(['orrery-coordinator', 'orrery-worker']));
    const workerCall = calls.find((c) => c.service === 'orrery-worker')!;
    expect(workerCall.attributes).toMatchObject({ 'gen_ai.operation.name': 'chat', 'gen_ai.provider.name': 'anthropic' });
    for (const key of ['gen_ai.request.model', 'gen_ai.response.model', 'gen_ai.usage.input_tokens', 'gen_ai.usage.output_tokens', 'gen_ai.usage.cache_read.input_tokens', 'gen_ai.usage.cache_creation.input_tokens', 'gen_ai.response.finish_reasons', 'orrery.cost_usd']) {
      expect(workerCall.attributes, key).toHaveProperty([key]);
    }
    // The conventions count the cache's tokens inside input_tokens; the Messages API reports them beside it.
    for (const c of calls) {
      const n = (k: string) => c.attributes[k] as number;
      expect(n('gen_ai.usage.input_tokens'), `${c.service} ${c.name}`).toBeGreaterThan(0);
      expect(n('gen_ai.usage.input_tokens')).toBeGreaterThanOrEqual(n('gen_ai.usage.cache_read.input_tokens') + n('gen_ai.usage.cache_creation.input_tokens'));
    }

    // Tool calls: the client tools the engine ran (corpus search, passage read) and the server tools the provider ran
    // (web search, web fetch), as GenAI execute_tool spans; a server tool's parent is the model call it ran in.
    const tools = spans.filter((s) => s.attributes['gen_ai.operation.name'] === 'execute_tool');
    expect(new Set(tools.map((t) => `${String(t.attributes['gen_ai.tool.name'])}/${String(t.attributes['gen_ai.tool.type'])}`))).toEqual(
      new Set(['search_corpus/function', 'read_passage/function', 'web_search/extension', 'web_fetch/extension']),
    );
    for (const t of tools) {
      expect(t.name).toBe(`execute_tool ${String(t.attributes['gen_ai.tool.name'])}`);
      expect(t.attributes['gen_ai.tool.call.id'], t.name).toEqual(expect.any(String));
      if (t.attributes['gen_ai.tool.type'] === 'extension') expect(byId.get(t.parentSpanId!)?.name, t.name).toMatch(/^chat /);
    }

    // Store queries: the passage store's reads (passages by id; the corpus tools search a working set in memory), as
    // database client spans; like every span here, they reach the REST request through their parents (below).
    const queries = spans.filter((s) => s.attributes['db.system.name'] !== undefined);
    expect(queries.map((q) => q.name)).toContain('get passages');
    for (const q of queries) {
      expect(['search passages', 'get passages']).toContain(q.name);
      expect(q).toMatchObject({ kind: 3, attributes: { 'db.system.name': 'sqlite', 'db.operation.name': q.name.split(' ')[0], 'db.collection.name': 'passages', 'db.response.returned_rows': expect.any(Number) } });
    }

    // The webhook delivery: an HTTP client span in the coordinator, without the URL's query.
    const post = spans.find((s) => s.name === 'POST' && s.kind === 3);
    expect(post).toMatchObject({
      service: 'orrery-coordinator',
      attributes: { 'http.request.method': 'POST', 'http.response.status_code': 204, 'server.address': '127.0.0.1', 'server.port': hooks.port, 'url.full': hooks.url('/done') },
    });

    // Every span of the run reaches the REST request through its parents: nothing is orphaned.
    for (const s of spans) {
      let at: ReceivedSpan | undefined = s;
      const seen = new Set<string>();
      while (at?.parentSpanId && !seen.has(at.spanId)) {
        seen.add(at.spanId);
        at = byId.get(at.parentSpanId);
      }
      expect(at?.spanId, `${s.service} ${s.name} does not reach the root`).toBe(root!.spanId);
    }
  }, 180_000);
});
