import type { EngineFactory } from '@orrery/engines';
import type { Run } from '@orrery/protocol';
import { describe, expect, it } from 'vitest';
import type { CoordinatorConfig } from '../config/coordinator-config';
import type { DecisionLogService } from '../events/decision-log.service';
import { EMPTY_SIGNAL_HISTORY, type JudgeInput } from '@orrery/decisions';
import { RoundJudgeService } from './round-judge.service';

/** L0 is unsure on this input (middling novelty and coverage), so the judge model is asked. */
const input: JudgeInput = {
  goal: 'trade policy',
  round: 3,
  lastActions: { tasksDispatched: 3, newSources: 2, newFindings: 2, newFacets: 1 },
  state: {
    subtopics: [{ id: 'tariffs', title: 'Tariffs', evidenceCount: 5 }],
    coverage: 0.34,
    novelty: 0.1,
    budgetLeft: { tokens: 0.5, tasks: 0.5, rounds: 0.5, wallSeconds: 0.5 },
  },
  history: EMPTY_SIGNAL_HISTORY,
  stateVersion: 11,
  targetCoverage: 0.8,
};

const usage = { inputTokens: 420, outputTokens: 37, cacheReadTokens: 0, cacheWriteTokens: 0, webSearchRequests: 0, webFetchRequests: 0, costUsd: 0 };

type Logged = { key: string; level: string; confidence: number; conclusion: string; signals: Record<string, unknown> };
function service(judgeVerdict?: () => Promise<unknown>, logged: Logged[] = []): RoundJudgeService {
  const engines = { coordinator: () => ({ capabilities: { usesCorpus: true, ...(judgeVerdict ? { judge: { judgeVerdict } } : {}) } }) } as unknown as EngineFactory;
  const decisions = { prepare: (_run: string, key: string, d: Omit<Logged, 'key'>) => (logged.push({ key, level: d.level, confidence: d.confidence, conclusion: d.conclusion, signals: d.signals }), { key, json: '' }) } as unknown as DecisionLogService;
  return new RoundJudgeService(engines, decisions, { JUDGE_TIMEOUT_MS: 2000 } as CoordinatorConfig);
}

const run = { id: 'r1', engine: 'anthropic', judgeEnabled: true } as unknown as Run;

describe('RoundJudgeService', () => {
  it('returns the tokens the judge model spent with its decision', async () => {
    const d = await service(async () => ({ signal: 'stop', confidence: 0.9, reason: 'enough', usage })).decide(run, input, true);
    expect(d.verdict).toMatchObject({ level: 'L2', signal: 'stop' });
    expect(d.verdict).not.toHaveProperty('usage');
    expect(d.usage).toEqual(usage);
  });

  it('counts the tokens of an answer it did not act on (the model unsure too)', async () => {
    const d = await service(async () => ({ signal: 'pivot', confidence: 0.2, reason: 'unsure', usage })).decide(run, input, true);
    expect(d.outcome).toBe('act');
    expect(d.verdict).toMatchObject({ signal: 'continue', signals: { l2Unsure: true } });
    expect(d.usage).toEqual(usage);
  });

  it('logs each level with what it saw, and the L2 model reply word for word with its latency', async () => {
    const raw = '{"signal":"stop","confidence":0.9,"reason":"enough"}';
    const logged: Logged[] = [];
    await service(async () => ({ signal: 'stop', confidence: 0.9, reason: 'enough', usage, raw }), logged).decide(run, input, true);
    expect(logged.map((l) => l.level)).toEqual(['L0', 'L1', 'L2']);
    for (const l of logged) expect(l.signals['input']).toMatch(/^round 3; coverage 34% \(target 80%\); novelty 10%; 2 new findings, 2 new sources from 3 tasks/);
    expect(logged[2]!).toMatchObject({ confidence: 0.9, conclusion: 'stop: enough', signals: { modelReply: raw, latencyMs: expect.any(Number) } });
    expect(logged[0]!.signals).not.toHaveProperty('modelReply');
    expect(logged[1]!.signals).not.toHaveProperty('modelReply');
  });

  it('never asks the model when judging is switched off', async () => {
    let asked = 0;
    const d = await service(async () => (asked++, { signal: 'stop', confidence: 0.9, reason: 'enough', usage })).decide(run, input, false);
    expect(asked).toBe(0);
    expect(d.flags).toContain('judge-off');
  });

  it('logs every level it asked, in order: L0, L1, L2', async () => {
    const logged: Logged[] = [];
    await service(async () => ({ signal: 'stop', confidence: 0.9, reason: 'enough', usage }), logged).decide(run, input, true);
    expect(logged.map((l) => [l.key, l.level])).toEqual([
      ['round:3:judge:0', 'L0'],
      ['round:3:judge:1', 'L1'],
      ['round:3:judge:2', 'L2'],
    ]);
    // The input carries no forecast, which the committed L1 reads: it abstains, and says why.
    expect(logged[1]!.signals).toMatchObject({ missing: 'gapTasks', flags: ['l1-unsure'] });
  });

  it('has no usage when the rules decided alone', async () => {
    const d = await service().decide(run, input, true);
    expect(d.verdict.level).toBe('L0');
    expect(d.usage).toBeUndefined();
  });
});
