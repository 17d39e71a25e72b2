import { IngestState } from '@orrery/runtime';
import { afterAll, describe, expect, it } from 'vitest';
import { dropPrefix, redisClient, uniquePrefix } from '../support/test-env';

describe('an ingest is ready once its structure is kept, not when its last chunk is written', () => {
  const redis = redisClient();
  const prefix = uniquePrefix('ingest-state');
  const state = new IngestState(redis, prefix);
  afterAll(async () => {
    await dropPrefix(prefix);
    redis.disconnect();
  });

  it('keeps the corpus ingesting after the last chunk; only its own plan run marks it ready', async () => {
    await state.begin('c', 'i1', 60_000);
    await state.planning('c', 'i1', 'i1.a');
    expect(await state.planned('c', 'i1', 'i1.a', { passages: 80, changed: 80, removed: 0, chunks: 2 })).toBe(false);
    expect(await state.chunkDone('c', 'i1.a', 0)).toBe(false);
    expect(await state.chunkDone('c', 'i1.a', 1)).toBe(true);
    // A chunk redone after a crash counts once, and says again that all are written (its structure job is one job id).
    expect(await state.chunkDone('c', 'i1.a', 1)).toBe(true);
    expect(await state.get('c')).toMatchObject({ status: 'ingesting', chunks: 2, chunksDone: 2 });
    // A killed plan's earlier run cannot mark the corpus ready.
    expect(await state.ready('c', 'i1.old')).toBe(false);
    expect((await state.get('c'))?.status).toBe('ingesting');
    expect(await state.ready('c', 'i1.a')).toBe(true);
    expect(await state.get('c')).toMatchObject({ status: 'ready', chunksDone: 2, finishedAt: expect.any(String) });
  });

  it('reports a plan whose chunks were all written before it was recorded as complete, and not ready', async () => {
    await state.begin('d', 'i2', 60_000);
    await state.planning('d', 'i2', 'i2.a');
    await state.chunkDone('d', 'i2.a', 0);
    expect(await state.planned('d', 'i2', 'i2.a', { passages: 10, changed: 10, removed: 0, chunks: 1 })).toBe(true);
    expect((await state.get('d'))?.status).toBe('ingesting');
    // The plan redone (its worker killed) is a new plan run: the old run's structure job leaves the corpus alone.
    await state.planning('d', 'i2', 'i2.b');
    expect(await state.ready('d', 'i2.a')).toBe(false);
    expect((await state.get('d'))?.status).toBe('planning');
  });
});
