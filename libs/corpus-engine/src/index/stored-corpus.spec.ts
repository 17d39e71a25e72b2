import type { SearchTask } from '@orrery/protocol';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoredPassage } from '@orrery/passages';
import { SqlitePassageStore, contentHash } from '@orrery/passages';
import { CorpusCoordinatorEngine } from '../plan/corpus-coordinator-engine';
import { CorpusRegistry } from './corpus-registry';
import { CorpusSubagentEngine } from '../search/corpus-subagent-engine';
import { DEFAULT_WORKING_SET } from '../profile/topic-working-set';

const stored = (id: string, document: string, text: string): StoredPassage => ({ id, document, title: document, text, contentHash: contentHash([document, text]) });

/** Technical docs: TLS set-up in several tools, twenty sibling product pages with one templated paragraph, and filler. */
function docs(): StoredPassage[] {
  const tls = [
    ['nginx', 'Nginx serves TLS when ssl_certificate and ssl_certificate_key name the certificate chain and the private key in the server block.'],
    ['nginx', 'Reload nginx after renewing a TLS certificate; nginx reads the certificate files again without dropping connections.'],
    ['openssl', 'openssl req creates a certificate signing request; openssl x509 prints the certificate dates, issuer and subject.'],
    ['openssl', 'openssl s_client connects to a TLS server and shows the certificate chain the server sends during the handshake.'],
    ['certbot', 'certbot obtains a TLS certificate from an ACME certificate authority and renews the certificate before it expires.'],
    ['curl', 'curl verifies the TLS certificate of the server against the CA bundle; --cacert names another bundle of certificates.'],
  ].map(([doc, text], i) => stored(`${doc}#${i}`, `man/${doc}`, text!));
  const products = Array.from({ length: 20 }, (_, i) =>
    stored(`lightsail-${i}#0`, `aws/lightsail-${i}`, `Example: to attach a TLS certificate to the distribution, run the command with the certificate name and the distribution name, then wait until the certificate status is ISSUED. Lightsail example page ${i}.`),
  );
  const filler = Array.from({ length: 60 }, (_, i) => stored(`filler-${i}#0`, `man/filler-${i % 12}`, `The scheduler ${['rotates logs', 'mounts disks', 'parses options', 'prints usage'][i % 4]} for job number ${i} and writes a status line to the journal.`));
  return [...tls, ...products, ...filler];
}

const RUN = '00000000-0000-4000-8000-000000000002';
const TOPIC = 'TLS certificates';

function searchTask(query: string): SearchTask {
  return {
    kind: 'search',
    taskId: 't.1.a',
    runId: RUN,
    round: 1,
    engine: 'corpus',
    corpus: 'docs',
    subtopicId: 'a',
    query,
    maxFindings: 10,
    knownSourceIds: [],
    context: { objective: `Find evidence about ${query}`, topic: TOPIC, scope: { include: [], exclude: [] }, outputFormat: '', sourceGuidance: '', excerpts: [] },
  };
}

describe('a corpus in the passage store', () => {
  const dir = mkdtempSync(join(tmpdir(), 'orrery-stored-corpus-'));
  const store = new SqlitePassageStore(join(dir, 'passages.sqlite'));
  // Small as it is, the corpus is read through the topic's working index here, as a large one is.
  const TOPIC_SET = { ...DEFAULT_WORKING_SET, wholeCorpusMax: 0 };
  const registry = new CorpusRegistry({ builtins: false, store, workingSet: TOPIC_SET });
  beforeAll(() => store.upsert('docs', docs()));
  afterAll(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('is known by name once ingested, and an unknown name is still an error', async () => {
    expect(await registry.knows('docs')).toBe(true);
    expect(await registry.knows('nope')).toBe(false);
    await expect(registry.forTopic('nope', TOPIC)).rejects.toThrow(/unknown corpus "nope"/);
  });

  it('answers a topic from a working index: the passages the topic reaches, one copy of a templated text, at most so many per document', async () => {
    const { index } = await registry.forTopic('docs', TOPIC);
    const ids = index.passages.map((p) => p.id);
    expect(ids.filter((id) => id.startsWith('lightsail-'))).toHaveLength(1);
    for (const id of ['nginx#0', 'openssl#2', 'certbot#4', 'curl#5']) expect(ids).toContain(id);
    expect(index.size).toBeLessThan(docs().length);
    const capped = new CorpusRegistry({ builtins: false, store, workingSet: { ...TOPIC_SET, perDocument: 1 } });
    const one = (await capped.forTopic('docs', TOPIC)).index.passages.map((p) => p.id);
    expect(one.filter((id) => id.startsWith('nginx#'))).toHaveLength(1);
    expect(one.filter((id) => id.startsWith('openssl#'))).toHaveLength(1);
    const small = new CorpusRegistry({ builtins: false, store, workingSet: { ...TOPIC_SET, size: 5 } });
    expect((await small.forTopic('docs', TOPIC)).index.size).toBeLessThanOrEqual(5);
  });

  it('reads a small corpus whole, as one index of the whole corpus (the partition and every neighbour), in its order', async () => {
    const whole = new CorpusRegistry({ builtins: false, store });
    const { index } = await whole.forTopic('docs', TOPIC);
    expect(index.wholeCorpus).toBe(true);
    expect(index.passages.map((p) => p.id)).toEqual(docs().map((p) => p.id));
  });

  it('sees a re-ingest: a changed passage is in the next working index', async () => {
    const before = (await registry.forTopic('docs', TOPIC)).index;
    expect((await registry.forTopic('docs', TOPIC)).index).toBe(before);
    await store.upsert('docs', [stored('nginx#1', 'man/nginx', 'Reload nginx after renewing a TLS certificate; OCSP stapling needs the resolver directive.')]);
    const after = (await registry.forTopic('docs', TOPIC)).index;
    expect(after).not.toBe(before);
    expect(after.passage('nginx#1')?.text).toContain('OCSP stapling');
    await store.upsert('docs', docs());
  });

  it('keeps the working set it chose in the store: another process reads it without searching, until the corpus changes', async () => {
    let searches = 0;
    // The same store, counting its full-text searches.
    const watched = new Proxy(store, {
      get: (target, key: keyof SqlitePassageStore) => {
        if (key === 'search') return (...args: Parameters<SqlitePassageStore['search']>) => (searches++, target.search(...args));
        const value = target[key];
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const topic = 'certificate renewal';
    const fresh = () => new CorpusRegistry({ builtins: false, store: watched, workingSet: TOPIC_SET }).forTopic('docs', topic);
    const first = (await fresh()).index;
    expect(searches).toBeGreaterThan(0);
    searches = 0;
    const second = (await fresh()).index;
    expect(searches).toBe(0);
    expect(second.passages).toEqual(first.passages);
    expect(second.search(topic, 10)).toEqual(first.search(topic, 10));
    await store.upsert('docs', [stored('nginx#1', 'man/nginx', 'Reload nginx after renewing a TLS certificate; OCSP stapling needs the resolver directive.')]);
    const third = (await fresh()).index;
    expect(searches).toBeGreaterThan(0);
    expect(third.passage('nginx#1')?.text).toContain('OCSP stapling');
    await store.upsert('docs', docs());
  });

  it('is researched end to end by the corpus engines, and sibling pages cannot fill the findings', async () => {
    const coord = new CorpusCoordinatorEngine(registry, 'docs');
    const sub = new CorpusSubagentEngine(registry, 'docs');
    const { plan } = await coord.plan({ runId: RUN, topic: TOPIC, corpus: 'docs', maxSubtopics: 4, classification: 'breadth', coverageCheck: true });
    expect(plan.subtopics.length).toBeGreaterThan(0);
    const r = await sub.search(searchTask(plan.subtopics[0]!.query), () => undefined);
    expect(r.findings.length).toBeGreaterThan(2);
    const cited = r.findings.map((f) => f.sourceId);
    expect(cited.filter((id) => id.startsWith('lightsail-')).length).toBeLessThanOrEqual(1);
    expect(cited.some((id) => id.startsWith('filler-'))).toBe(false);
    const texts = new Map(docs().map((p) => [p.id, p.text]));
    for (const f of r.findings) expect(texts.get(f.sourceId)).toContain(f.quote);
  });
});
