import { CorpusBusyError, removeCorpus } from '@orrery/runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generatedPassages, IngestCluster, toJsonl } from './ingest-support';

/** A real store's drop that waits until released: the window in which an ingest could start while a removal runs. */
function gatedDrop(drop: (corpus: string) => Promise<boolean>): { drop: (corpus: string) => Promise<boolean>; started: Promise<void>; release: () => void } {
  let release!: () => void;
  let started!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const begun = new Promise<void>((r) => (started = r));
  return {
    drop: async (corpus) => {
      started();
      await gate;
      return drop(corpus);
    },
    started: begun,
    release,
  };
}

describe('a corpus removal and an ingest of it never run at once', () => {
  const cluster = new IngestCluster('remove-race');
  let path: string;

  beforeAll(async () => {
    await cluster.startWorker('remove-race-worker');
    path = cluster.file('docs.jsonl', toJsonl(generatedPassages(30)));
  }, 60_000);
  afterAll(() => cluster.stop());

  it('an ingest started while the corpus is removed is refused, and the removal leaves nothing behind', { timeout: 60_000 }, async () => {
    await cluster.waitReady('docs', await cluster.ingest('docs', path));
    const store = cluster.passages();
    const gated = gatedDrop((c) => store.drop(c));
    const removal = removeCorpus(gated, cluster.state, 'docs');
    await gated.started;
    // Before the claim was atomic, this ingest started, and the drop then deleted its first chunks.
    const refused = await cluster.ingest('docs', path).then(
      () => null,
      (err: unknown) => err,
    );
    expect(refused).toBeInstanceOf(CorpusBusyError);
    expect((refused as CorpusBusyError).ingest.status).toBe('removing');
    expect((await cluster.state.get('docs'))?.status).toBe('removing');
    await expect(removeCorpus({ drop: (c) => store.drop(c) }, cluster.state, 'docs')).rejects.toThrow(/being removed/);
    gated.release();
    expect(await removal).toBe(true);
    expect(await cluster.state.get('docs')).toBeUndefined();
    expect((await store.stats('docs')).passages).toBe(0);
    // Once it is removed, it can be ingested again.
    await cluster.waitReady('docs', await cluster.ingest('docs', path));
    expect((await store.stats('docs')).passages).toBe(30);
  });

  it('a second ingest is refused while one plans, and a removal is refused while one runs', { timeout: 60_000 }, async () => {
    const first = await cluster.ingest('twice', path);
    const second = await cluster.ingest('twice', path).then(
      () => null,
      (err: unknown) => err,
    );
    expect(second).toBeInstanceOf(CorpusBusyError);
    expect((second as CorpusBusyError).ingest.ingestId).toBe(first);
    const store = cluster.passages();
    // The plan may already be done; the removal is refused unless the ingest has ended.
    const state = await cluster.state.get('twice');
    if (state?.status === 'planning' || state?.status === 'ingesting') await expect(removeCorpus({ drop: (c) => store.drop(c) }, cluster.state, 'twice')).rejects.toBeInstanceOf(CorpusBusyError);
    await cluster.waitReady('twice', first);
  });

  it('a removal whose drop fails puts the corpus’s state back, so it stays researchable and removable', { timeout: 60_000 }, async () => {
    const id = await cluster.ingest('kept', path);
    const ready = await cluster.waitReady('kept', id);
    await expect(removeCorpus({ drop: () => Promise.reject(new Error('disk gone')) }, cluster.state, 'kept')).rejects.toThrow('disk gone');
    expect(await cluster.state.get('kept')).toEqual(ready);
    expect(await removeCorpus({ drop: (c) => cluster.passages().drop(c) }, cluster.state, 'kept')).toBe(true);
  });
});
