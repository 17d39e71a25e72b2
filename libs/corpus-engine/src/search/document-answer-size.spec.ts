import type { Finding, SynthesizeTask } from '@orrery/protocol';
import { describe, expect, it } from 'vitest';
import { GENERIC_VOCABULARY } from '@orrery/passages';
import { extractiveReport } from '../write/extractive-synthesis';

/** 24 passages of three READMEs that all mention TLS; one says how to connect over TLS with a password. */
function task(topic: string): SynthesizeTask {
  const sources = Array.from({ length: 24 }, (_, i) => {
    const file = ['ioredis/README.md', 'pg/README.md', 'bullmq/README.md'][i % 3]!;
    const answer = i === 13;
    const text = answer ? 'Pass tls: {} and password to new Redis() to connect over TLS with a password.' : `Option ${i} of ${file} mentions TLS settings in passing.`;
    return { id: `${file}#${i}`, title: `${file} > Section ${i}`, url: `file://${file}`, text };
  });
  const findings: Finding[] = sources.map((s, i) => ({
    id: `${s.id}~q`,
    claim: s.text,
    sourceId: s.id,
    quote: s.text,
    subtopicId: `s${i % 4}`,
    relevance: { score: s.id === 'pg/README.md#13' ? 5 : 1 + (i % 5) / 10, topicTerms: [], facetTerms: [] },
  }));
  return {
    kind: 'synthesize',
    taskId: 't',
    runId: 'r',
    round: 1,
    engine: 'corpus',
    corpus: 'docs',
    sections: [0, 1, 2, 3].map((k) => ({ subtopicId: `s${k}`, title: `S${k}`, findings: findings.filter((f) => f.subtopicId === `s${k}`) })),
    sources,
    maxCitations: 25,
    context: { objective: topic, topic, scope: { include: [], exclude: [] }, outputFormat: '', sourceGuidance: '', excerpts: [] },
  };
}

const cited = (r: ReturnType<typeof extractiveReport>): Set<string> => new Set(r.sections.flatMap((s) => s.paragraphs.flatMap((p) => p.citations.map((c) => c.sourceId))));

describe('document answers', () => {
  const prose = { vocabulary: GENERIC_VOCABULARY, isName: () => false };

  it('cite at most 8 passages, the one that answers first in the lede and in the report', () => {
    const r = extractiveReport(task('How do I connect to Redis over TLS with a password?'), prose);
    expect(cited(r).size).toBeLessThanOrEqual(8);
    expect(r.summary).toMatch(/^The documents say: pg\/README\.md \(Section 13\): “Pass tls/);
    expect(r.sections[0]!.paragraphs[0]!.citations[0]!.sourceId).toBe('pg/README.md#13');
  });

  it('go past 8 only for a broad question', () => {
    expect(cited(extractiveReport(task('List all the TLS options in the docs'), prose)).size).toBeGreaterThan(8);
  });

  it('cite what answers the question, not what shares one of its words: the TLS passage first, the HIMPORT examples left out', () => {
    const texts = [
      ...Array.from({ length: 6 }, (_, i) => `Redis HIMPORT example ${i}: redis.himport('fieldset', { a: ${i} }) stores a hash of fields.`),
      'To connect over TLS, pass tls: { ca } and password: "secret" to new Redis({ host, tls, password }).',
      'Sentinel mode: new Redis({ sentinels, name }) connects to the master Redis that the sentinels name.',
    ];
    const sources = texts.map((text, i) => ({ id: `ioredis/README.md#${i}`, title: `ioredis/README.md > Part ${i}`, url: 'file://ioredis/README.md', text }));
    // The search ranks the HIMPORT examples above the answer (they say "Redis" most often).
    const findings: Finding[] = sources.map((s, i) => ({ id: `${s.id}~q`, claim: s.text, sourceId: s.id, quote: s.text, subtopicId: 's0', relevance: { score: i < 6 ? 3 : 1, topicTerms: [], facetTerms: [] } }));
    const t = task('How do I connect to Redis over TLS with a password?');
    const r = extractiveReport({ ...t, sources, sections: [{ subtopicId: 's0', title: 'S0', findings }] }, prose);
    expect(r.sections[0]!.paragraphs[0]!.citations[0]!.sourceId).toBe('ioredis/README.md#6');
    expect([...cited(r)].filter((id) => Number(id.split('#')[1]) < 6)).toEqual([]);
  });

  it('read the words code runs together: connectionTimeoutMillis answers "a connection timeout"', () => {
    const texts = [
      'Fired whenever the pool creates a new pg.Client and it connects to the backend.',
      'Emitted whenever an idle client in the pool loses its connection to PostgreSQL.',
      'To use pg-pool, create a pool: new Pool({ host, max: 20, connectionTimeoutMillis: 1000 }).',
    ];
    const sources = texts.map((text, i) => ({ id: `pg-pool/README.md#${i}`, title: `pg-pool/README.md > Part ${i}`, url: 'file://pg-pool/README.md', text }));
    const findings: Finding[] = sources.map((s, i) => ({ id: `${s.id}~q`, claim: s.text, sourceId: s.id, quote: s.text, subtopicId: 's0', relevance: { score: 3 - i, topicTerms: [], facetTerms: [] } }));
    const t = task('How do I set a connection timeout in pg?');
    const r = extractiveReport({ ...t, sources, sections: [{ subtopicId: 's0', title: 'S0', findings }] }, prose);
    expect(r.summary).toMatch(/^The documents say: pg-pool\/README\.md \(Part 2\): “To use pg-pool, create a pool/);
  });
});
