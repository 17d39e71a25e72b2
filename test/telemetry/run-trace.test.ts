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

describe('traces of a run across the coordinator and a worker', () => {
  let api: FakeMessagesApi;
  let receiver: OtlpReceiver;
  let stack: Stack;

  beforeAll(async () => {
    receiver = await OtlpReceiver.start();
    api = await FakeMessagesApi.start();
    api.scriptByRole(researchScript({ rounds: 1 }));
    const otel = { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, OTEL_BSP_SCHEDULE_DELAY: '200' };
    stack = await startStack('run-trace', {
      workers: 1,
      env: { ENGINE: 'anthropic', CLAUDE_DEFAULT_CORPUS: 'kestrel', ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: api.baseURL, ANTHROPIC_MAX_RETRIES: '1', ...otel },
    });
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
    await api?.close();
    await receiver?.close();
  });

  it('exports one trace from POST to the model calls, with parent links across the queue', async () => {
    const { id } = await stack.client.submit({ topic: 'Kestrel River floods' });
    const events = await stack.follow(id);
    expect(events.at(-1)).toMatchObject({ type: 'run.finished', status: 'done' });
    const run = await stack.client.run(id);
    expect(run.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-0[01]$/);
    const traceId = run.traceparent!.split('-')[1];

    const ofRun = (): ReceivedSpan[] => receiver.spans.filter((s) => s.traceId === traceId);
    // Each process exports on its own schedule: wait for the finalize step's span and one span per task run.
    const tasksRun = run.counters.tasksCompleted + run.counters.tasksFailed;
    await waitFor(() => ofRun().some((s) => s.name === 'step finalize') && ofRun().filter((s) => s.name.startsWith('task ')).length >= tasksRun, 15_000, 'the spans of every step and task');
    const spans = ofRun();
    const byId = new Map(spans.map((s) => [s.spanId, s]));
    expect(receiver.rejected).toEqual([]);

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
