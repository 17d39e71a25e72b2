import { describe, expect, it } from 'vitest';
import { JUDGE_LIMITS as L, JudgeToolInputSchema, MCP_BODY_LIMIT_BYTES } from './mcp-tools';

/** Every judge field at its limit, written in a character that takes 3 bytes in UTF-8. */
const largest = (c = '判') => ({
  goal: c.repeat(L.goal),
  step: 999_999,
  state_summary: c.repeat(L.stateSummary),
  recent_actions: Array.from({ length: L.actions }, () => ({ action: c.repeat(L.action), result: c.repeat(L.result), new_information: false })),
  history: Array.from({ length: L.history }, () => ({ step: 999_999, signal: 'continue' as const })),
  state_version: 999_999,
  max_steps: 999_999,
});

describe("the judge tool's input limits", () => {
  it('accept the largest legal call, whose JSON-RPC body fits /mcp', () => {
    const args = largest();
    expect(JudgeToolInputSchema.safeParse(args).success).toBe(true);
    const body = JSON.stringify({ jsonrpc: '2.0', id: 2 ** 40, method: 'tools/call', params: { name: 'judge', arguments: args } });
    expect(Buffer.byteLength(body)).toBeLessThan(MCP_BODY_LIMIT_BYTES);
  });

  it.each([
    ['goal', { goal: 'g'.repeat(L.goal + 1) }, `goal must have at most ${L.goal} characters`],
    ['state_summary', { state_summary: 's'.repeat(L.stateSummary + 1) }, `state_summary must have at most ${L.stateSummary} characters`],
    ['recent_actions', { recent_actions: Array.from({ length: L.actions + 1 }, () => 'a') }, `recent_actions must have at most ${L.actions} items`],
    ['recent_actions[]', { recent_actions: ['a'.repeat(L.action + 1)] }, `recent_actions[] must have at most ${L.action} characters`],
    ['recent_actions[].action', { recent_actions: [{ action: 'a'.repeat(L.action + 1) }] }, `recent_actions[].action must have at most ${L.action} characters`],
    ['recent_actions[].result', { recent_actions: [{ action: 'a', result: 'r'.repeat(L.result + 1) }] }, `recent_actions[].result must have at most ${L.result} characters`],
    ['history', { history: Array.from({ length: L.history + 1 }, () => 'continue') }, `history must have at most ${L.history} items`],
  ])('refuse a %s over its limit, naming the field and the limit', (_field, over, message) => {
    const r = JudgeToolInputSchema.safeParse({ goal: 'g', step: 1, state_summary: 's', ...over });
    expect(r.success).toBe(false);
    expect(r.error!.issues.map((i) => i.message)).toEqual([message]);
  });
});
