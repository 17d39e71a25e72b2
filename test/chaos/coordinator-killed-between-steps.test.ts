import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { baselineRun, ChaosCluster, expectSameRun, fingerprint } from './chaos-support';

const TOPIC = 'chaos drill: the hub dies between steps';

/**
 * Kills the coordinator the moment an event is written (read with a blocking XREAD, so the kill lands
 * within a millisecond or so): usually in the middle of the step that wrote it, or just after it.
 */
async function killOnEvent(cluster: ChaosCluster, runId: string, type: string): Promise<void> {
  const conn = cluster.connect();
  try {
    let after = '0-0';
    for (;;) {
      const res = await conn.xread('BLOCK', 30_000, 'STREAMS', cluster.runKey(runId, ':events'), after);
      if (!res) throw new Error(`no ${type} event within 30 s`);
      for (const [, entries] of res) {
        for (const [id, fields] of entries) {
          after = id;
          if ((JSON.parse(fields[fields.indexOf('event') + 1]!) as { type: string }).type === type) {
            const live = cluster.coordinators.filter((c) => c.child.exitCode === null && c.child.signalCode === null);
            await Promise.all(live.map((c) => cluster.kill(c)));
            return;
          }
        }
      }
    }
  } finally {
    conn.disconnect();
  }
}

describe('chaos: the coordinator is SIGKILLed between steps', () => {
  const cluster = new ChaosCluster('chaos-coord-steps', { workerEnv: { SIMULATED_LATENCY_MS: '600' } });
  beforeAll(async () => {
    await cluster.startAll(1, 1);
  });
  afterAll(() => cluster.stop());

  it('after each kill a fresh coordinator resumes, and the run matches an undisturbed one', { timeout: 150_000 }, async () => {
    const baseline = await baselineRun(cluster, TOPIC);

    const { id } = await cluster.client.submit({ topic: TOPIC, engine: 'simulated' });
    // Three kills: in the plan step, in round 1's step (after round.completed, before round 2 goes out),
    // and in the finalize step (after report.ready, before the run is marked done).
    for (const type of ['plan.ready', 'round.completed', 'report.ready']) {
      await killOnEvent(cluster, id, type);
      await cluster.startCoordinator();
    }
    expect(await cluster.waitForEnd(id)).toBe('done');
    expectSameRun(await fingerprint(cluster, id), baseline);
  });
});
