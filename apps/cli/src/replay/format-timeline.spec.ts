import type { StoredRunEvent } from '@orrery/protocol';
import { describe, expect, it } from 'vitest';
import { formatTimeline } from './format-timeline';

const ts = '2026-12-01T12:00:00.000Z';
const judge = (level: 'L0' | 'L2', signals: Record<string, string | number | boolean>): StoredRunEvent =>
  ({ id: '1-0', runId: 'r', ts, type: 'decision', decision: { runId: 'r', ts, decisionType: 'judge', level, confidence: 0.9, conclusion: 'stop: enough', stateVersion: 7, signals } }) as StoredRunEvent;

describe('formatTimeline: judge logs', () => {
  it('shows level, confidence, latency, state version, conclusion, what the judge saw and the model reply', () => {
    const text = formatTimeline([
      judge('L0', { rule: 'ambiguous', input: 'round 2; coverage 50% (target 80%)' }),
      judge('L2', { model: true, input: 'round 2; coverage 50% (target 80%)', modelReply: '{"signal":"stop","confidence":0.9,"reason":"enough"}', latencyMs: 412 }),
    ]);
    expect(text).toContain('decision judge [L0, confidence 0.90, state v7]: stop: enough');
    expect(text).toContain('decision judge [L2, confidence 0.90, 412 ms, state v7]: stop: enough');
    expect(text).toContain('saw: round 2; coverage 50% (target 80%)');
    expect(text).toContain('model reply: {"signal":"stop","confidence":0.9,"reason":"enough"}');
    expect(text).toContain('signals: model=true latencyMs=412');
  });
});
