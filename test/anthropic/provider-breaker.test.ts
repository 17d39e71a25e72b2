/**
 * The provider's breaker in Redis, as two processes of a fleet see it: the threshold-th outage answer in a row opens
 * it for both; after the cool-down exactly one of them may probe; the probe's outage answer shuts it again, its
 * success closes it; and a success between outage answers resets the count.
 */
import { FleetRequestGate } from '@orrery/runtime';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { dropPrefix, REDIS_URL, uniquePrefix } from '../support/test-env';

describe('provider breaker (FleetRequestGate)', () => {
  const prefix = uniquePrefix('breaker');
  const redis = [new Redis(REDIS_URL), new Redis(REDIS_URL)];
  afterAll(async () => {
    for (const r of redis) r.disconnect();
    await dropPrefix(prefix);
  });
  const breaker = { threshold: 3, cooldownMs: 300, windowMs: 10_000 };

  it('opens on the threshold, lets one probe through per cool-down, and closes on its answer', async () => {
    const paused: number[] = [];
    const a = new FleetRequestGate(redis[0]!, prefix, { breaker, pollMs: 20, onPause: (ms) => void paused.push(ms) });
    const b = new FleetRequestGate(redis[1]!, prefix, { breaker, pollMs: 20 });
    // A success between outage answers resets the count: two, a success, two more keep it closed.
    expect(await (await a.enter()).unavailable('overloaded (529)')).toBe(0);
    expect(await (await b.enter()).unavailable('overloaded (529)')).toBe(0);
    await (await a.enter()).done(true);
    expect(await (await a.enter()).unavailable('overloaded (529)')).toBe(0);
    expect(await (await b.enter()).unavailable('overloaded (529)')).toBe(0);
    expect(await a.outage()).toBeNull();
    // The third in a row opens it, for every process: shut for the cool-down, the queue rate-limited as long.
    expect(await (await b.enter()).unavailable('overloaded (529)')).toBe(300);
    const open = await a.outage();
    expect(open).toMatchObject({ state: 'open', reason: 'overloaded (529)', failedProbes: 0 });
    // A request that was already out and meets it too waits, without opening anything anew.
    const t0 = Date.now();
    const probe = await a.enter();
    expect(Date.now() - t0).toBeGreaterThanOrEqual(200);
    // Half-open: a's request is the probe; b's waits for its answer.
    expect((await b.outage())?.state).toBe('half-open');
    let bIn = false;
    const bWaits = b.enter().then((t) => ((bIn = true), t));
    await new Promise((r) => setTimeout(r, 150));
    expect(bIn).toBe(false);
    // The probe meets the outage again: shut for another cool-down, the same outage.
    expect(await probe.unavailable('overloaded (529)')).toBe(300);
    expect(await a.outage()).toMatchObject({ id: open!.id, failedProbes: 1 });
    // a's own shutting (the probe) rate-limited its queue; b opened it without a hook here.
    expect(paused).toEqual([300]);
    // Next cool-down: b is now the probe (it was waiting), and its answer closes the breaker.
    const bProbe = await bWaits;
    await bProbe.done(true);
    expect(await a.outage()).toBeNull();
    expect(await a.outagesSeen()).toBe(1);
    const t1 = Date.now();
    await (await a.enter()).done(true);
    expect(Date.now() - t1).toBeLessThan(100);
  });

  it('does not let a request sent before a run of outage failures end it by coming back fine', async () => {
    const pre = uniquePrefix('breaker-late');
    const a = new FleetRequestGate(redis[0]!, pre, { breaker, pollMs: 20 });
    const b = new FleetRequestGate(redis[1]!, pre, { breaker, pollMs: 20 });
    try {
      // a's request goes out before the outage, and its answer comes back only after two outage answers.
      const early = await a.enter();
      await new Promise((r) => setTimeout(r, 5));
      expect(await (await b.enter()).unavailable('overloaded (529)')).toBe(0);
      expect(await (await a.enter()).unavailable('overloaded (529)')).toBe(0);
      await early.done(true);
      // It says nothing of now: the third outage answer in a row still opens the breaker.
      expect(await (await b.enter()).unavailable('overloaded (529)')).toBe(300);
      expect(await a.outage()).toMatchObject({ state: 'open' });
    } finally {
      await dropPrefix(pre);
    }
  });

  it('tells which came first by one clock, Redis’s, however far apart the processes’ own clocks are', async () => {
    const pre = uniquePrefix('breaker-skew');
    const a = new FleetRequestGate(redis[0]!, pre, { breaker, pollMs: 20 });
    const b = new FleetRequestGate(redis[1]!, pre, { breaker, pollMs: 20 });
    try {
      // a's host runs 200 ms ahead of b's; its request goes out before the outage, and comes back fine after it began.
      const [now, dateNow] = [performance.now.bind(performance), Date.now];
      vi.spyOn(performance, 'now').mockImplementation(() => now() + 200);
      vi.spyOn(Date, 'now').mockImplementation(() => dateNow() + 200);
      const early = await a.enter();
      vi.restoreAllMocks();
      await new Promise((r) => setTimeout(r, 5));
      expect(await (await b.enter()).unavailable('overloaded (529)')).toBe(0);
      expect(await (await b.enter()).unavailable('overloaded (529)')).toBe(0);
      await early.done(true);
      expect(await (await b.enter()).unavailable('overloaded (529)')).toBe(300);
    } finally {
      vi.restoreAllMocks();
      await dropPrefix(pre);
    }
  });
});

