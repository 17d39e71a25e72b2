import { Client } from '@modelcontextprotocol/client';
import { InMemoryTransport, McpServer } from '@modelcontextprotocol/server';
import type { StepJudgeModel } from '@orrery/engines';
import { describe, expect, it, vi } from 'vitest';
import type { JudgeCallLog } from './judge-call-log.service';
import { registerJudgeTool } from './judge-tool';

async function judgeClient(opts: { judge: 'on' | 'off'; model?: StepJudgeModel }) {
  const log = { record: vi.fn() };
  const server = new McpServer({ name: 'test', version: '1' });
  registerJudgeTool(server, { principal: { id: 'key:test', admin: false }, model: opts.model, config: { JUDGE: opts.judge, JUDGE_TIMEOUT_MS: 200 }, log: log as unknown as JudgeCallLog });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(a);
  const client = new Client({ name: 'test', version: '1' });
  await client.connect(b);
  const judge = async (args: Record<string, unknown>) => {
    const r = await client.callTool({ name: 'judge', arguments: args });
    return r.structuredContent as Record<string, unknown>;
  };
  return { judge, log, close: () => client.close() };
}

const unsure = { goal: 'g', step: 3, state_summary: 's', recent_actions: ['look'] };

describe('the judge tool', () => {
  it('asks the model only when the rules are unsure, and logs every call with its latency', async () => {
    const model = vi.fn<StepJudgeModel>(async () => ({ signal: 'stop', confidence: 0.8, reason: 'done' }));
    const t = await judgeClient({ judge: 'on', model });
    expect(await t.judge({ goal: 'g', step: 5, max_steps: 5, state_summary: 's' })).toMatchObject({ signal: 'stop', level: 'L0' });
    expect(model).not.toHaveBeenCalled();
    expect(await t.judge({ ...unsure, state_version: 4 })).toMatchObject({ signal: 'stop', level: 'L2', state_version: 4, rule: 'judge-model' });
    expect(model).toHaveBeenCalledOnce();
    expect(model.mock.calls[0]![0]).toMatchObject({ goal: 'g', step: 3, stateSummary: 's', recentActions: ['look'], stateVersion: 4 });
    expect(t.log.record).toHaveBeenCalledTimes(2);
    const [principal, input, verdict, ms] = t.log.record.mock.calls[1]!;
    expect(principal).toMatchObject({ id: 'key:test' });
    expect(input).toMatchObject({ step: 3 });
    expect(verdict).toMatchObject({ level: 'L2' });
    expect(typeof ms).toBe('number');
    await t.close();
  });

  it('never asks the model with JUDGE=off', async () => {
    const model = vi.fn<StepJudgeModel>();
    const t = await judgeClient({ judge: 'off', model });
    expect(await t.judge(unsure)).toMatchObject({ signal: 'continue', level: 'L0', rule: 'unsure' });
    expect(model).not.toHaveBeenCalled();
    await t.close();
  });

  it('maps snake_case actions to the judge input', async () => {
    const t = await judgeClient({ judge: 'on' });
    const v = await t.judge({ goal: 'g', step: 9, state_summary: 's', recent_actions: [1, 2, 3].map((i) => ({ action: `read ${i}`, new_information: false })) });
    expect(v).toMatchObject({ signal: 'pivot', rule: 'idle-steps' });
    await t.close();
  });
});
