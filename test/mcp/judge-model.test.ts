/**
 * The MCP `judge` tool with a key: when the rules are unsure it asks the Claude engine's judge model (here the fake
 * Messages API, which refuses a structured-output request without its schema), returns the model's verdict as L2 and
 * logs the call; a model slower than JUDGE_TIMEOUT_MS counts as continue.
 */
import { Client } from '@modelcontextprotocol/client';
import { InMemoryTransport, McpServer } from '@modelcontextprotocol/server';
import { EngineFactory, loadEngineConfig } from '@orrery/engines';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { JudgeCallLog } from '../../apps/coordinator/src/mcp/judge-call-log.service';
import { registerJudgeTool } from '../../apps/coordinator/src/mcp/judge-tool';
import { FakeMessagesApi, reply } from '../support/fake-messages-api';

describe('the judge tool with a judge model', () => {
  let api: FakeMessagesApi;
  beforeAll(async () => {
    api = await FakeMessagesApi.start();
  });
  afterAll(async () => api?.close());

  const judgeClient = async () => {
    const engines = new EngineFactory(loadEngineConfig({ ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: api.baseURL }));
    const log = { record: vi.fn() };
    const server = new McpServer({ name: 'test', version: '1' });
    registerJudgeTool(server, {
      principal: { id: 'key:test', admin: false },
      judge: engines.judgeModel(),
      modelJudging: async () => true,
      spend: { hasRoom: async () => true, charge: () => undefined },
      config: { JUDGE_TIMEOUT_MS: 1000 },
      log: log as unknown as JudgeCallLog,
    });
    const [a, b] = InMemoryTransport.createLinkedPair();
    await server.connect(a);
    const client = new Client({ name: 'test', version: '1' });
    await client.connect(b);
    const judge = async (args: Record<string, unknown>) => (await client.callTool({ name: 'judge', arguments: args })).structuredContent as Record<string, unknown>;
    return { judge, log, close: () => client.close() };
  };
  const unsure = { goal: 'find when the Harlow dam was built', step: 3, state_summary: 'two sources on the dam, no date yet', recent_actions: ['search: harlow dam', 'read: harlow-dam-02'] };

  it('asks the model when the rules are unsure and returns its verdict as L2, logged', async () => {
    api.scriptByRole({ judge: reply.json({ signal: 'pivot', confidence: 0.74, reason: 'the searches find the dam but never its date; ask for the construction year' }) });
    const t = await judgeClient();
    const before = api.accepted.length;
    expect(await t.judge({ ...unsure, state_version: 7 })).toMatchObject({ signal: 'pivot', level: 'L2', confidence: 0.74, state_version: 7 });
    const asked = api.accepted.slice(before);
    expect(asked.map((r) => r.role)).toEqual(['judge']);
    expect(JSON.stringify(asked[0]!.body.messages)).toContain('find when the Harlow dam was built');
    expect(t.log.record).toHaveBeenCalledOnce();
    await t.close();
  });

  it('counts a model slower than its deadline as continue', async () => {
    api.scriptByRole({ judge: () => ({ ...reply.json({ signal: 'stop', confidence: 0.9, reason: 'late' }), durationMs: 3000 }) });
    const t = await judgeClient();
    expect(await t.judge(unsure)).toMatchObject({ signal: 'continue' });
    await t.close();
  });
});
