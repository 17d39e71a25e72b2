import type { Message } from '@anthropic-ai/sdk/resources/messages';
import { describe, expect, it, vi } from 'vitest';
import type { StepJudgeModel, StepModelVerdict } from '../step-judge';
import type { LoopStep } from './agent-loop';
import { LoopJudge, type LoopJudgeOptions } from './loop-judge';

const stats = { requests: 1, toolCalls: 1, toolErrors: 0, serverToolCalls: 0, continuations: 0, maxTokensContinuations: 0, nudges: 0, idleStops: 0, emptyReplies: 0, budgetStops: 0, iterationCapHits: 0, continuationCapHits: 0, refusals: 0, truncated: 0, contextExhausted: 0 };
const usage = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, webSearchRequests: 0, webFetchRequests: 0, costUsd: 0 };
const search = (query: string, newSources: number): LoopStep => ({
  label: 't',
  message: { content: [{ type: 'tool_use', id: `tu-${Math.random()}`, name: 'search_corpus', input: { query } }] } as unknown as Message,
  stats,
  usage,
  newSources,
});
const says = (signal: StepModelVerdict['signal'], confidence = 0.8): StepJudgeModel => async () => ({ signal, confidence, reason: `model says ${signal}` });
const judge = (o: Partial<LoopJudgeOptions>) => new LoopJudge({ goal: 'g', label: 'task', every: 5, timeoutMs: 1000, enabled: async () => true, ...o });
const tick = () => new Promise((r) => setTimeout(r, 5));

describe('LoopJudge', () => {
  it('stops a loop that repeats the same search, by the rules, logged with level and state version', async () => {
    const j = judge({});
    const verdicts = [];
    for (let i = 0; i < 6; i++) {
      const v = await j.onStep(search('kestrel dam', i === 0 ? 3 : 0));
      verdicts.push(v ? ('stop' in v ? 'stop' : 'steer') : 'continue');
      if (v && 'stop' in v) {
        expect(v.stop).toMatchObject({ decisionType: 'loop-judge', level: 'L0', signals: { stateVersion: 4, step: 4, signal: 'stop', rule: 'pivot-cooldown-stop' } });
        break;
      }
    }
    expect(verdicts).toEqual(['continue', 'continue', 'steer', 'stop']);
  });

  it('asks the model synchronously every N steps and, in between, asynchronously where the rules are unsure', async () => {
    const calls: number[] = [];
    const model: StepJudgeModel = async (input) => {
      calls.push(input.step);
      return { signal: 'continue', confidence: 0.9, reason: 'fine' };
    };
    const j = judge({ every: 3, model, replyOf: (v) => `reply for step ${v}` });
    // Odd steps find nothing new (the rules are unsure), even steps bring sources (the rules see progress).
    for (let i = 1; i <= 6; i++) {
      await j.onStep(search(`query ${i}`, i % 2 ? 0 : 2));
      await tick();
    }
    expect(calls).toEqual([1, 3, 5, 6]);
    const sync = j.decisions.filter((d) => d.signals.mode === 'sync').map((d) => d.signals.step);
    expect(sync).toEqual([3, 6]);
    expect(j.decisions.find((d) => d.signals.mode === 'sync')).toMatchObject({ level: 'L2', signals: { modelReply: 'reply for step 3', latencyMs: expect.any(Number), input: expect.stringMatching(/^step 3; /) } });
    expect(j.decisions.filter((d) => d.signals.mode === 'async').map((d) => d.signals.stateVersion)).toEqual([1, 5]);
  });

  it('drops an asynchronous judgement that comes back after the loop moved on', async () => {
    let release!: () => void;
    const slow: StepJudgeModel = (input) =>
      input.step === 1 ? new Promise((r) => (release = () => r({ signal: 'stop', confidence: 0.9, reason: 'late stop' }))) : says('continue')(input, { signal: new AbortController().signal });
    const j = judge({ every: 100, model: slow });
    await j.onStep(search('a', 0));
    await j.onStep(search('b', 2));
    release();
    await tick();
    const v = await j.onStep(search('c', 2));
    expect(v).toBeUndefined();
    expect(j.decisions.find((d) => d.signals.stale)).toMatchObject({ signals: { stateVersion: 1, step: 3, stale: true } });
  });

  it('when sync and async disagree, the conservative one wins and the conflict is recorded', async () => {
    const model: StepJudgeModel = async (input) => (input.step === 1 ? { signal: 'stop', confidence: 0.9, reason: 'async stop' } : { signal: 'continue', confidence: 0.9, reason: 'sync continue' });
    const j = judge({ every: 2, model });
    await j.onStep(search('a', 0));
    await tick();
    const v = await j.onStep(search('b', 2));
    expect(v && 'stop' in v).toBe(true);
    expect(j.decisions.find((d) => d.signals.conflict)).toMatchObject({ conclusion: expect.stringMatching(/async L2 stop.*sync L2 continue|sync L2 continue.*async L2 stop/), signals: { signal: 'stop' } });
  });

  it('two asynchronous pivots in a row force a synchronous call', async () => {
    const model = vi.fn(says('pivot', 0.6));
    const j = judge({ every: 100, model });
    await j.onStep(search('a', 0));
    await tick();
    await j.onStep(search('b', 0)); // async pivot from step 1 taken
    await tick();
    await j.onStep(search('c', 2)); // async pivot from step 2 taken: two in a row → this step's call is synchronous
    expect(j.decisions.find((d) => d.signals.mode === 'sync')).toMatchObject({ signals: { step: 3, forcedBy: 'two async pivots' } });
  });

  it("wraps the loop up when less than 15% of the task's budget is left, judge calls counted", async () => {
    const model = vi.fn(says('continue'));
    const j = judge({ every: 1, model, budgetLeft: () => 0.1 });
    const v = await j.onStep(search('a', 3));
    expect(v && 'stop' in v && v.stop).toMatchObject({ level: 'L0', signals: { rule: 'task-budget', stateVersion: 1 } });
    expect(model).not.toHaveBeenCalled();
  });

  it('never asks the model while judging is switched off, and reads the switch at every step', async () => {
    const model = vi.fn(says('continue'));
    let on = true;
    const enabled = vi.fn(async () => on);
    const j = judge({ every: 1, model, enabled });
    await j.onStep(search('a', 2));
    on = false;
    for (const q of ['b', 'c', 'd']) await j.onStep(search(q, 2));
    expect(model).toHaveBeenCalledTimes(1);
    expect(enabled).toHaveBeenCalledTimes(4);
  });
});
