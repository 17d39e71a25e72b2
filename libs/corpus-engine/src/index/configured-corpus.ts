import { parse } from 'node:path';
import { statSync } from 'node:fs';
import { keepCorpusStructure } from '../profile/keep-structure';
import { planIngest, toStoredPassage, sourcePassages, sourceFingerprint } from '@orrery/passages/ingest';
import type { PassageStore, StoredPassage, Passage } from '@orrery/passages';
import type { ReadLimits } from '@orrery/passages/ingest';
import { contentHash } from '@orrery/passages';

/** A corpus the operator or an embedder names (built in, `CORPORA`, passages in memory): where its passages come from. */
export interface ConfiguredSource {
  /** What identifies the source's content without reading it; null: unknown, so it is read (and diffed) again. */
  fingerprint(): string | null;
  passages(): AsyncIterable<StoredPassage>;
}

const CHUNK = 1000;

/** A JSONL file or a folder of text files, read as the ingest queue reads it (a trusted path: the operator named it, so reads may go anywhere). */
export function fileSource(path: string, limits: ReadLimits): ConfiguredSource {
  const source = { kind: statSync(path).isDirectory() ? ('folder' as const) : ('jsonl' as const), path, within: [parse(path).root] };
  return { fingerprint: () => sourceFingerprint(source, limits), passages: () => sourcePassages(source, limits) };
}

/**
 * Passages derived from bundled data or held in memory: `key` names their content (a version, or a hash of them).
 * Read lazily, the event loop turning every so many (splitting the bundled speeches takes seconds).
 */
export function passagesSource(key: string | null, read: () => Iterable<Passage>): ConfiguredSource {
  return {
    fingerprint: () => key,
    async *passages() {
      let n = 0;
      for (const p of read()) {
        yield toStoredPassage(p, p.title || p.id);
        if (++n % 100 === 0) await new Promise((r) => setImmediate(r));
      }
    },
  };
}

/** A fingerprint for passages held in memory: their content. */
export const memoryKey = (passages: readonly Passage[]): string => `memory:${contentHash(passages.flatMap((p) => [p.id, p.title, p.url ?? '', p.text]))}`;

/**
 * Brings a configured corpus into the store, as an ingest does: nothing is read when the source's fingerprint is the
 * one the store recorded; otherwise new and changed passages are written (in the source's order), vanished ones
 * removed, the fingerprint recorded once the store holds the whole source, and the corpus's structure kept
 * (`keepCorpusStructure`, for a corpus of at most `wholeCorpusMax` passages). Idempotent, so processes that start
 * together may both run it.
 */
export async function storeConfigured(store: PassageStore, name: string, source: ConfiguredSource, wholeCorpusMax?: number): Promise<void> {
  const fingerprint = source.fingerprint();
  if (fingerprint && fingerprint === (await store.sourceFingerprint(name)) && (await store.passageCount(name, 1)) > 0) return;
  await store.setSourceFingerprint(name, null);
  await planIngest(source.passages(), store, name, CHUNK, (_chunk, passages) => store.upsert(name, passages));
  if (fingerprint) await store.setSourceFingerprint(name, fingerprint);
  await keepCorpusStructure(store, name, wholeCorpusMax);
}
