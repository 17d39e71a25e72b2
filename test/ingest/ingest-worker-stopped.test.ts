import { afterAll, describe, expect, it } from 'vitest';
import type { ServiceProcess } from '../support/service-processes';
import { waitFor } from '../support/service-processes';
import { generatedPassages, IngestCluster, toJsonl } from './ingest-support';

const PASSAGES = 4000;
const GRACE_MS = 1000;

/** The chunk job a worker is writing now. */
async function activeChunkOf(cluster: IngestCluster, worker: ServiceProcess): Promise<string | undefined> {
  const jobs = await cluster.queue.getActive();
  return jobs.find((j) => j.name === 'chunk' && j.processedBy === `${worker.name}:ingest`)?.id;
}

describe('ingest workers that die or are stopped mid-chunk', () => {
  const cluster = new IngestCluster('ingest-kill', { INGEST_CHUNK_PASSAGES: '200', INGEST_LOCK_MS: '2000', SHUTDOWN_GRACE_MS: String(GRACE_MS) });
  afterAll(() => cluster.stop());

  it('a SIGKILLed worker’s chunk is redone by another and the corpus ends complete', { timeout: 120_000 }, async () => {
    const victim = await cluster.startWorker('ingest-victim');
    const survivor = await cluster.startWorker('ingest-survivor');
    const path = cluster.file('kill.jsonl', toJsonl(generatedPassages(PASSAGES)));
    const ingestId = await cluster.ingest('killed', path);
    let held: string | undefined;
    // Once planned: a worker runs a plan and a chunk at once, and a plan redone after a kill queues only what is not written yet.
    const planned = async () => (await cluster.state.get('killed'))?.status !== 'planning';
    await waitFor(async () => (await planned()) && Boolean((held = await activeChunkOf(cluster, victim))), 60_000, 'the victim to hold a chunk once the plan is recorded');
    await victim.kill('SIGKILL');

    const done = await cluster.waitReady('killed', ingestId, 90_000);
    expect(done).toMatchObject({ passages: PASSAGES, changed: PASSAGES, chunks: PASSAGES / 200, chunksDone: PASSAGES / 200 });
    expect((await cluster.passages().stats('killed')).passages).toBe(PASSAGES);
    // The chunk the victim held is no longer waiting or active anywhere: it was written (and removed once complete).
    expect(await cluster.queue.getJob(held!)).toBeUndefined();
    expect(survivor.child.exitCode).toBeNull();
  });

  it('SIGTERM mid-chunk: the worker exits within SHUTDOWN_GRACE_MS and another finishes the ingest', { timeout: 120_000 }, async () => {
    const stopping = await cluster.startWorker('ingest-stopping');
    const path = cluster.file('term.jsonl', toJsonl(generatedPassages(PASSAGES)));
    const ingestId = await cluster.ingest('stopped', path);
    await waitFor(async () => Boolean(await activeChunkOf(cluster, stopping)), 60_000, 'the worker to hold a chunk');
    const t0 = Date.now();
    await stopping.kill('SIGTERM');
    const took = Date.now() - t0;
    // Nest's shutdown hooks re-raise the signal once the app is closed.
    expect(stopping.child.exitCode === 0 || stopping.child.signalCode === 'SIGTERM').toBe(true);
    // The grace, plus what one chunk's write in hand takes to return control, plus process exit.
    expect(took).toBeLessThan(GRACE_MS + 3000);

    const done = await cluster.waitReady('stopped', ingestId, 90_000);
    expect(done.chunksDone).toBe(PASSAGES / 200);
    expect((await cluster.passages().stats('stopped')).passages).toBe(PASSAGES);
  });
});
