import { addUsage, emptyUsage, inPhase } from '@orrery/engine';
import { DEFAULT_PRICES, usageOf } from '@orrery/claude-engine';
import { describe, expect, it } from 'vitest';
import { spendingPhase } from './spending-phase';

describe('the phase a budget warning names', () => {
  // Planning on Opus costs more; research on Sonnet reads more tokens.
  const u = addUsage(
    addUsage(emptyUsage(), inPhase(usageOf({ input_tokens: 20_000, output_tokens: 8000 }, 'claude-opus-5-5', DEFAULT_PRICES), 'plan')),
    inPhase(usageOf({ input_tokens: 1000, output_tokens: 100, cache_read_input_tokens: 90_000 }, 'claude-sonnet-5-5', DEFAULT_PRICES), 'research'),
  );
  it('the dearest phase for dollars, the one with most tokens for tokens', () => {
    expect(spendingPhase('costUsd', u)).toBe('plan');
    expect(spendingPhase('tokens', u)).toBe('research');
  });
  it('research for tasks, rounds and wall time; none for tokens before any was spent', () => {
    for (const d of ['tasks', 'rounds', 'wallSeconds']) expect(spendingPhase(d, emptyUsage())).toBe('research');
    expect(spendingPhase('tokens', emptyUsage())).toBeUndefined();
  });
});
