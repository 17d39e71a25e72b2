import { describe, expect, it, vi } from 'vitest';
import { judgeStep } from './judge-step';
import { stepJudgeSettingsFromEnv } from './step-judge-settings';
import { stepJudgeL0 } from './step-rules';
import { CONFIDENCE, IDLE_THRESHOLD, MAX_PIVOTS, PIVOT_COOLDOWN, REPEATED_ACTION_THRESHOLD } from '../thresholds';
import type { StepAction, StepJudgeInput, StepJudgeModel } from './step-judge-types';

const base = (p: Partial<StepJudgeInput> = {}): StepJudgeInput => ({ goal: 'find the config error', step: 10, stateSummary: 'reading config files', ...p });
const found = (action: string, result: string): StepAction => ({ action, result });
const nothing = (action: string): StepAction => ({ action, result: '' });
const idleTail = (n: number): StepAction[] => Array.from({ length: n }, (_, i) => nothing(`grep pattern-${i}`));

describe('step rules (L0)', () => {
  it('continues with high confidence when the last action brought new information', () => {
    const v = stepJudgeL0(base({ recentActions: [found('read a.yml', 'port: 80'), found('read b.yml', 'host: x')] }));
    expect(v).toMatchObject({ signal: 'continue', level: 'L0', rule: 'progress', confidence: CONFIDENCE.progress, stateVersion: 10 });
  });
  it('echoes the caller state version, else the step', () => {
    expect(stepJudgeL0(base({ stateVersion: 42 })).stateVersion).toBe(42);
    expect(stepJudgeL0(base({ step: 7 })).stateVersion).toBe(7);
  });
  it('stops at the step budget, not one step before', () => {
    expect(stepJudgeL0(base({ step: 20, maxSteps: 20 }))).toMatchObject({ signal: 'stop', rule: 'step-budget' });
    expect(stepJudgeL0(base({ step: 19, maxSteps: 20 })).rule).not.toBe('step-budget');
  });
  it('pivots on the same action repeated at the threshold (case and spacing ignored), not below', () => {
    const at = Array.from({ length: REPEATED_ACTION_THRESHOLD }, (_, i) => (i % 2 ? 'Search  "config error"' : 'search "config error"'));
    expect(stepJudgeL0(base({ recentActions: at }))).toMatchObject({ signal: 'pivot', rule: 'repeated-action' });
    expect(stepJudgeL0(base({ recentActions: at.slice(1) })).rule).toBe('unsure');
  });
  it('pivots after IDLE_THRESHOLD idle steps in a row, not fewer', () => {
    expect(stepJudgeL0(base({ recentActions: idleTail(IDLE_THRESHOLD) }))).toMatchObject({ signal: 'pivot', rule: 'idle-steps' });
    expect(stepJudgeL0(base({ recentActions: [found('a', 'x'), ...idleTail(IDLE_THRESHOLD - 1)] })).rule).toBe('unsure');
  });
  it('counts a result seen before, or newInformation: false, as idle', () => {
    const again = [found('read a', 'port: 80'), found('read b', 'port: 80'), { action: 'read c', newInformation: false }, found('read d', ' PORT:  80 ')];
    expect(stepJudgeL0(base({ recentActions: again })).rule).toBe('idle-steps');
  });
  it('is unsure (confidence below escalation) with bare string actions or none', () => {
    for (const recentActions of [undefined, [], ['read a', 'read b']]) {
      const v = stepJudgeL0(base(recentActions ? { recentActions } : {}));
      expect(v).toMatchObject({ signal: 'continue', rule: 'unsure' });
      expect(v.confidence).toBeLessThan(0.5);
    }
  });
  it('looks at the newest actions only', () => {
    const old = Array.from({ length: 30 }, () => 'same');
    expect(stepJudgeL0(base({ recentActions: [...old, ...Array.from({ length: 10 }, (_, i) => found(`q${i}`, `r${i}`))] })).rule).toBe('progress');
  });
});

describe('pivot guards with a history', () => {
  const pivotNow = { recentActions: Array.from({ length: 3 }, () => 'search x') };
  it('turns a pivot inside the cooldown into stop when the path is still dead', () => {
    const v = stepJudgeL0(base({ ...pivotNow, step: 10, history: [{ step: 10 - (PIVOT_COOLDOWN - 1), signal: 'pivot' }] }));
    expect(v).toMatchObject({ signal: 'stop', rule: 'pivot-cooldown-stop' });
  });
  it('turns an L2 pivot inside the cooldown into continue when the path is not dead', async () => {
    const model: StepJudgeModel = async () => ({ signal: 'pivot', confidence: 0.9, reason: 'try another source' });
    const v = await judgeStep(base({ recentActions: ['a'], history: ['continue', 'pivot'] }), { model });
    expect(v).toMatchObject({ signal: 'continue', level: 'L2', rule: 'pivot-cooldown-continue' });
  });
  /** What a pivot outside the cooldown becomes after one earlier pivot: itself, unless one pivot is the cap. */
  const afterOnePivot = MAX_PIVOTS > 1 ? 'pivot' : 'stop';
  it('allows a pivot at exactly the cooldown (up to the cap)', () => {
    const v = stepJudgeL0(base({ ...pivotNow, step: 10, history: [{ step: 10 - PIVOT_COOLDOWN, signal: 'pivot' }] }));
    expect(v.signal).toBe(afterOnePivot);
  });
  it('reads bare signals as one per step ending at step - 1', () => {
    const h = (n: number) => ['pivot', ...Array.from({ length: n }, () => 'continue' as const)] as const;
    expect(stepJudgeL0(base({ ...pivotNow, history: [...h(PIVOT_COOLDOWN - 2)] })).signal).toBe('stop');
    expect(stepJudgeL0(base({ ...pivotNow, history: [...h(PIVOT_COOLDOWN - 1)] })).signal).toBe(afterOnePivot);
  });
  it('stops when the pivot cap is reached, pivots below it', () => {
    const pivots = (n: number) => Array.from({ length: n }, (_, i) => ({ step: i * 4 + 1, signal: 'pivot' as const }));
    expect(stepJudgeL0(base({ ...pivotNow, step: 40, history: pivots(MAX_PIVOTS) }))).toMatchObject({ signal: 'stop', rule: 'pivot-cap-stop' });
    expect(stepJudgeL0(base({ ...pivotNow, step: 40, history: pivots(MAX_PIVOTS - 1) })).signal).toBe('pivot');
  });
  it('ignores history entries at or after the judged step', () => {
    expect(stepJudgeL0(base({ ...pivotNow, history: [{ step: 10, signal: 'pivot' }, { step: 11, signal: 'pivot' }] })).signal).toBe('pivot');
  });
});

describe('judgeStep levels', () => {
  const unsure = base({ recentActions: ['read a'] });
  it('never calls the model when the rules are sure', async () => {
    const model = vi.fn<StepJudgeModel>();
    const v = await judgeStep(base({ step: 5, maxSteps: 5 }), { model });
    expect(v).toMatchObject({ signal: 'stop', level: 'L0' });
    expect(model).not.toHaveBeenCalled();
  });
  it('never calls the model with judging off', async () => {
    const model = vi.fn<StepJudgeModel>();
    expect(await judgeStep(unsure, { model, judgeEnabled: false })).toMatchObject({ level: 'L0', rule: 'unsure' });
    expect(model).not.toHaveBeenCalled();
  });
  it('asks the model when unsure and takes its verdict', async () => {
    const model = vi.fn<StepJudgeModel>(async () => ({ signal: 'stop', confidence: 0.8, reason: 'goal reached' }));
    const v = await judgeStep({ ...unsure, stateVersion: 3 }, { model });
    expect(v).toMatchObject({ signal: 'stop', level: 'L2', confidence: 0.8, stateVersion: 3, rule: 'judge-model' });
    expect(v.reasons).toContain('goal reached');
    expect(model).toHaveBeenCalledOnce();
  });
  it('answers continue when the model times out, and aborts it', async () => {
    let aborted = false;
    const model: StepJudgeModel = (_i, { signal }) =>
      new Promise((resolve) => {
        signal.addEventListener('abort', () => (aborted = true));
        setTimeout(() => resolve({ signal: 'stop', confidence: 1, reason: 'x' }), 1000);
      });
    const t0 = performance.now();
    const v = await judgeStep(unsure, { model, timeoutMs: 30 });
    expect(performance.now() - t0).toBeLessThan(500);
    expect(v).toMatchObject({ signal: 'continue', level: 'L2', rule: 'judge-model-timeout', confidence: CONFIDENCE.modelFallback });
    expect(aborted).toBe(true);
  });
  it('answers continue when the model throws (even synchronously) or breaks the contract', async () => {
    const throws: StepJudgeModel = () => {
      throw new Error('boom');
    };
    expect(await judgeStep(unsure, { model: throws })).toMatchObject({ signal: 'continue', rule: 'judge-model-error' });
    const bad = (async () => ({ signal: 'halt', confidence: 2, reason: 'x' })) as unknown as StepJudgeModel;
    expect(await judgeStep(unsure, { model: bad })).toMatchObject({ signal: 'continue', rule: 'judge-model-invalid' });
  });
});

describe('stepJudgeSettingsFromEnv', () => {
  it('reads JUDGE and JUDGE_TIMEOUT_MS with defaults', () => {
    expect(stepJudgeSettingsFromEnv({})).toEqual({ judgeEnabled: true, timeoutMs: 3000 });
    expect(stepJudgeSettingsFromEnv({ JUDGE: 'off', JUDGE_TIMEOUT_MS: '250' })).toEqual({ judgeEnabled: false, timeoutMs: 250 });
  });
  it('rejects a malformed value naming the variable', () => {
    expect(() => stepJudgeSettingsFromEnv({ JUDGE: 'maybe' })).toThrow(/JUDGE/);
    expect(() => stepJudgeSettingsFromEnv({ JUDGE_TIMEOUT_MS: 'soon' })).toThrow(/JUDGE_TIMEOUT_MS/);
  });
});

describe('the ladder on the step judge', () => {
  const unsure = base({ recentActions: [found('read a.conf', 'x'), nothing('grep timeout')] });
  it('does not act on a model answer below 0.5: continue, flagged to escalate', async () => {
    const v = await judgeStep(unsure, { model: async () => ({ signal: 'stop', confidence: 0.2, reason: 'maybe done' }) });
    expect(v).toMatchObject({ signal: 'continue', level: 'L2', rule: 'judge-model-unsure', route: 'escalate' });
  });
  it('keeps the rules\' verdict where they are sure enough to act, on a scheduled check', async () => {
    const v = await judgeStep(base({ recentActions: [found('read a.conf', 'timeout=5')] }), { escalate: 'always', model: async () => ({ signal: 'stop', confidence: 0.3, reason: 'maybe done' }) });
    expect(v).toMatchObject({ signal: 'continue', level: 'L0', rule: 'progress', route: 'act' });
    expect(v.reasons.at(-1)).toMatch(/judge model unsure \(stop at 0.3\): not acted on/);
  });
  it('acts and flags from 0.5 to 0.8, acts above', async () => {
    expect(await judgeStep(unsure, { model: async () => ({ signal: 'stop', confidence: 0.5, reason: 'done' }) })).toMatchObject({ signal: 'stop', route: 'act-and-flag' });
    expect(await judgeStep(unsure, { model: async () => ({ signal: 'stop', confidence: 0.81, reason: 'done' }) })).toMatchObject({ signal: 'stop', route: 'act' });
  });
});
