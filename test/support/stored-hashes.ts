import type { PassageStore } from '@orrery/passages';

/** Every passage's content hash a store holds for a corpus, its pages read into one map (for small test corpora). */
export async function storedHashes(store: Pick<PassageStore, 'hashPages'>, corpus: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for await (const page of store.hashPages(corpus)) for (const [id, hash] of page) out.set(id, hash);
  return out;
}
