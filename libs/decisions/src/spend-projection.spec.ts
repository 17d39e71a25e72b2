import { describe, expect, it } from 'vitest';
import { projectSpend } from './spend-projection';

describe('projectSpend', () => {
  it('warns when one more round at the rate so far would spend more than is left', () => {
    // Two rounds spent 70% of the dollars: 35% a round, 30% left.
    expect(projectSpend({ tokens: 0.9, costUsd: 0.3, rounds: 0.4 }, 2)).toEqual({ dimension: 'costUsd', left: 0.3, perRound: 0.35 });
  });
  it('is quiet when the next round fits, when wrap-up already acts, and before any round', () => {
    expect(projectSpend({ tokens: 0.5, costUsd: 0.6 }, 2)).toBeNull();
    expect(projectSpend({ tokens: 0.1 }, 3)).toBeNull(); // under 15%: the wrap-up stops the run anyway
    expect(projectSpend({ rounds: 0.2 }, 4)).toBeNull(); // rounds are counted, not projected
    expect(projectSpend({ tokens: 0.2 }, 0)).toBeNull();
  });
});
