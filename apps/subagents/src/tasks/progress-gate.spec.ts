import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ProgressUpdate } from '@orrery/engine';
import { ProgressGate } from './progress-gate';

const line = (message: string): ProgressUpdate => ({ stage: 'search', message });

describe('ProgressGate', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('drops the lines of a task that ends within the quiet period', () => {
    const sent: ProgressUpdate[] = [];
    const gate = new ProgressGate((u) => sent.push(u), 100, 0);
    gate.report(line('a'), 10);
    gate.report(line('b'), 20);
    gate.close();
    vi.advanceTimersByTime(500);
    expect(sent).toEqual([]);
  });

  it('sends the latest held line when the quiet period ends, then everything at once', () => {
    const sent: ProgressUpdate[] = [];
    const gate = new ProgressGate((u) => sent.push(u), 100, performance.now());
    gate.report(line('a'));
    gate.report(line('b'));
    vi.advanceTimersByTime(100);
    expect(sent.map((u) => u.message)).toEqual(['b']);
    gate.report(line('c'), performance.now() + 1000);
    expect(sent.map((u) => u.message)).toEqual(['b', 'c']);
    gate.close();
  });

  it('never holds a line that carries a decision', () => {
    const sent: ProgressUpdate[] = [];
    const gate = new ProgressGate((u) => sent.push(u), 100, 0);
    const decision = { decisionType: 'fallback', level: 'L0' as const, confidence: 1, conclusion: 'fell back', signals: {} };
    gate.report({ stage: 'decision:fallback', message: 'fell back', decision }, 1);
    expect(sent).toHaveLength(1);
    gate.close();
  });

  it('with no quiet period, sends every line at once', () => {
    const sent: ProgressUpdate[] = [];
    const gate = new ProgressGate((u) => sent.push(u), 0, 0);
    gate.report(line('a'), 0);
    expect(sent).toHaveLength(1);
    gate.close();
  });
});
