import { Client } from '@modelcontextprotocol/client';
import { InMemoryTransport, McpServer } from '@modelcontextprotocol/server';
import type { ModelJudge } from '@orrery/engine';
import { JUDGE_LIMITS } from '@orrery/protocol';
import { describe, expect, it, vi } from 'vitest';
import type { JudgeCallLog } from './judge-call-log.service';
import { registerJudgeTool } from './judge-tool';

const usage = { inputTokens: 100, outputTokens: 20, cacheReadTokens: 0, cacheWriteTokens: 0, webSearchRequests: 0, webFetchRequests: 0, costUsd: 0.001 };
type Answer = { signal: 'continue' | 'stop' | 'pivot'; confidence: number; reason: string };
const modelSays = (answer: Answer) => vi.fn<ModelJudge['judgeVerdict']>(async () => ({ ...answer, usage, raw: JSON.stringify(answer) }));

async function judgeClient(opts: { judging: boolean | (() => boolean); model?: ReturnType<typeof modelSays>; room?: boolean }) {
  const log = { record: vi.fn() };
  const charge = vi.fn();
  const server = new McpServer({ name: 'test', version: '1' });
  const judging = opts.judging;
  registerJudgeTool(server, {
    principal: { id: 'key:test', admin: false },
    judge: opts.model ? { judgeVerdict: opts.model } : undefined,
    modelJudging: async () => (typeof judging === 'function' ? judging() : judging),
    spend: { hasRoom: async () => opts.room ?? true, charge },
    config: { JUDGE_TIMEOUT_MS: 200 },
    log: log as unknown as JudgeCallLog,
  });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(a);
  const client = new Client({ name: 'test', version: '1' });
  await client.connect(b);
  const judge = async (args: Record<string, unknown>) => {
    const r = await client.callTool({ name: 'judge', arguments: args });
    return r.structuredContent as Record<string, unknown>;
  };
  const call = (args: Record<string, unknown>) => client.callTool({ name: 'judge', arguments: args });
  return { judge, call, log, charge, close: () => client.close() };
}

const unsure = { goal: 'g', step: 3, state_summary: 's', recent_actions: ['look'] };

describe('the judge tool', () => {
  it('refuses a field over its limit with a tool error naming the field and the limit, before any judging', async () => {
    const model = modelSays({ signal: 'stop', confidence: 0.9, reason: 'done' });
    const t = await judgeClient({ judging: true, model });
    const r = await t.call({ ...unsure, recent_actions: [{ action: 'read', result: 'r'.repeat(JUDGE_LIMITS.result + 1) }] });
    expect(r.isError).toBe(true);
    expect(JSON.stringify(r.content)).toContain(`recent_actions[].result must have at most ${JUDGE_LIMITS.result} characters`);
    const big = await t.call({ ...unsure, state_summary: 's'.repeat(JUDGE_LIMITS.stateSummary + 1) });
    expect(JSON.stringify(big.content)).toContain(`state_summary must have at most ${JUDGE_LIMITS.stateSummary} characters`);
    expect(model).not.toHaveBeenCalled();
    expect(t.log.record).not.toHaveBeenCalled();
    await t.close();
  });

  it('asks the model only when the rules are unsure, and logs every call with its latency', async () => {
    const model = modelSays({ signal: 'stop', confidence: 0.8, reason: 'done' });
    const t = await judgeClient({ judging: true, model });
    expect(await t.judge({ goal: 'g', step: 5, max_steps: 5, state_summary: 's' })).toMatchObject({ signal: 'stop', level: 'L0' });
    expect(model).not.toHaveBeenCalled();
    expect(await t.judge({ ...unsure, state_version: 4 })).toMatchObject({ signal: 'stop', level: 'L2', state_version: 4, rule: 'judge-model' });
    expect(model).toHaveBeenCalledOnce();
    expect(model.mock.calls[0]![0]).toMatchObject({ goal: 'g', round: 3, stateSummary: 's', lastActions: ['look'] });
    expect(t.log.record).toHaveBeenCalledTimes(2);
    const [principal, input, verdict, ms] = t.log.record.mock.calls[1]!;
    expect(principal).toMatchObject({ id: 'key:test' });
    expect(input).toMatchObject({ step: 3 });
    expect(verdict).toMatchObject({ level: 'L2' });
    expect(typeof ms).toBe('number');
    await t.close();
  });

  it('never asks the model while JUDGE or the kill switch is off, read at every call', async () => {
    const model = modelSays({ signal: 'stop', confidence: 0.9, reason: 'done' });
    let on = false;
    const t = await judgeClient({ judging: () => on, model });
    expect(await t.judge(unsure)).toMatchObject({ signal: 'continue', level: 'L0', rule: 'unsure' });
    expect(model).not.toHaveBeenCalled();
    on = true;
    expect(await t.judge(unsure)).toMatchObject({ signal: 'stop', level: 'L2' });
    expect(model).toHaveBeenCalledOnce();
    await t.close();
  });

  it("charges the model's tokens to the caller, and asks no model once the caller's quota is spent", async () => {
    const model = modelSays({ signal: 'stop', confidence: 0.9, reason: 'done' });
    const t = await judgeClient({ judging: true, model });
    await t.judge(unsure);
    expect(t.charge).toHaveBeenCalledWith(usage);
    const spent = await judgeClient({ judging: true, model, room: false });
    expect(await spent.judge(unsure)).toMatchObject({ level: 'L0' });
    expect(model).toHaveBeenCalledOnce();
    await t.close();
    await spent.close();
  });

  it("tells the model the caller's real state: what its actions brought, and its pivots", async () => {
    const model = modelSays({ signal: 'continue', confidence: 0.9, reason: 'go on' });
    const t = await judgeClient({ judging: true, model });
    const recent_actions = [{ action: 'read a', result: 'found x' }, { action: 'read b', result: 'found y' }, { action: 'read c', new_information: false }];
    await t.judge({ goal: 'g', step: 6, state_summary: 's', recent_actions, history: [{ step: 2, signal: 'pivot' }] });
    expect(model.mock.calls[0]![0]).toMatchObject({
      yield: { actionsWithNewInformation: 2, actions: 3, idleSteps: 1 },
      signalHistory: { lastNonContinue: { signal: 'pivot', roundsAgo: 4 }, pivots: 1 },
    });
    await t.close();
  });

  it('maps snake_case actions to the judge input', async () => {
    const t = await judgeClient({ judging: true });
    const v = await t.judge({ goal: 'g', step: 9, state_summary: 's', recent_actions: [1, 2, 3].map((i) => ({ action: `read ${i}`, new_information: false })) });
    expect(v).toMatchObject({ signal: 'pivot', rule: 'idle-steps' });
    await t.close();
  });
});
