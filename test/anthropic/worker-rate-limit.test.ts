/**
 * The global rate limit on the subagent queue (SUBAGENT_RATE_MAX per SUBAGENT_RATE_DURATION_MS, a BullMQ limiter) holds
 * across all worker processes together, which is what keeps a fleet of Claude workers under the API's rate limits.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Stack, startStack } from '../support/stack';

const MAX = 2;
const DURATION = 1000;

describe('subagent rate limit across worker processes', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack('rate-limit', {
      workers: 2,
      env: { ENGINE: 'simulated', SIMULATED_SUBTOPICS: '6', SIMULATED_ROUNDS: '1' },
      workerEnv: { SUBAGENT_CONCURRENCY: '4', SUBAGENT_RATE_MAX: String(MAX), SUBAGENT_RATE_DURATION_MS: String(DURATION) },
    });
  }, 90_000);
  afterAll(async () => stack?.stop());

  it(`starts at most ${MAX} tasks per ${DURATION} ms in all, though two workers could run 8 at once`, async () => {
    const { id } = await stack.client.submit({ topic: 'rate limited research' });
    const events = await stack.follow(id);
    expect(events.at(-1)).toMatchObject({ type: 'run.finished', status: 'done' });
    const jobs = (await stack.jobs('subagents')).filter((j) => j.id?.startsWith(id) && j.processedOn);
    expect(jobs.length).toBeGreaterThanOrEqual(6);
    const starts = jobs.map((j) => j.processedOn!).sort((a, b) => a - b);
    // Fixed windows of DURATION: n tasks need at least ceil(n / MAX) windows, so the first and last start lie that far apart.
    const minSpan = (Math.ceil(starts.length / MAX) - 1) * DURATION;
    expect(starts.at(-1)! - starts[0]!).toBeGreaterThanOrEqual(minSpan * 0.9);
    // And no window of DURATION holds more than two windows' worth (a window boundary may fall inside it).
    for (const t of starts) expect(starts.filter((u) => u >= t && u < t + DURATION).length).toBeLessThanOrEqual(2 * MAX);
    // Both processes took tasks: the limit is global, not per worker.
    const pids = new Set(jobs.map((j) => (j.returnvalue as { stats?: { workerPid?: number } } | undefined)?.stats?.workerPid).filter(Boolean));
    expect(pids.size).toBe(2);
  }, 120_000);
});
