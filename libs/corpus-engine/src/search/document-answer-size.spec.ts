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

  /** A report over passages of READMEs, found best first: `[id, heading, text]`. */
  const over = (topic: string, passages: [string, string, string][]): ReturnType<typeof extractiveReport> => {
    const sources = passages.map(([id, heading, text]) => ({ id, title: `${id.split('#')[0]} > ${heading}`, url: `file://${id}`, text }));
    const findings: Finding[] = sources.map((s, i) => ({ id: `${s.id}~q`, claim: s.text, sourceId: s.id, quote: s.text.split('\n')[0]!, subtopicId: 's0', relevance: { score: 10 - i, topicTerms: [], facetTerms: [] } }));
    return extractiveReport({ ...task(topic), sources, sections: [{ subtopicId: 's0', title: 'S0', findings }] }, prose);
  };

  it('leave out what holds only the words every found passage holds: "pg" and "connection" do not answer a timeout', () => {
    const r = over('How do I set a connection timeout in pg?', [
      ['pg-pool/README.md#1', 'events > connect', 'Fired whenever the pool creates a new pg connection to the backend.'],
      ['pg-pool/README.md#2', 'events > error', 'Emitted whenever an idle pg connection in the pool loses its backend.'],
      ['pg-pool/README.md#3', 'events > release', 'Fired whenever a pg connection is released back to the pool.'],
      ['pg-pool/README.md#4', 'use > create', 'Create a pg pool whose connections time out:\n\n```js\nconst pool = new Pool({\n  max: 20,\n  connectionTimeoutMillis: 1000, // give up on a connection after 1 second\n})\n```'],
    ]);
    expect([...cited(r)]).toEqual(['pg-pool/README.md#4']);
  });

  it('quote the line of code that answers in the lede, not the passage\'s first sentence', () => {
    const r = over('How do I set a connection timeout in pg?', [
      ['pg-pool/README.md#4', 'use > create', 'Create a pg pool whose connections time out:\n\n```js\nconst pool = new Pool({\n  max: 20,\n  connectionTimeoutMillis: 1000, // give up on a connection after 1 second\n})\n```'],
      ['pg-pool/README.md#1', 'events > connect', 'Fired whenever the pool creates a new pg connection to the backend.'],
    ]);
    expect(r.summary).toMatch(/^The documents say: pg-pool\/README\.md \(use > create\): “connectionTimeoutMillis: 1000, \/\/ give up on a connection after 1 second”/);
  });

  it('quote a comment with the line of code it describes', () => {
    const r = over('How do I connect to Redis with a password?', [
      ['ioredis/README.md#7', 'Connect to Redis', 'You can specify which Redis to connect to by:\n\n```javascript\nnew Redis(6380); // a port\n// Connect using password "authpassword":\nnew Redis("redis://:authpassword@127.0.0.1:6380/4");\n```'],
    ]);
    expect(r.summary).toContain('“// Connect using password "authpassword":\nnew Redis("redis://:authpassword@127.0.0.1:6380/4");”');
  });

  it('leave out a document that never says what most found passages name: pg\'s passwords are not Redis\'s', () => {
    const r = over('How do I connect to Redis over TLS with a password?', [
      ['ioredis/README.md#57', 'TLS Options', 'To connect to Redis over TLS, set the `tls` option; add `password` when the server asks for one.'],
      ['ioredis/README.md#7', 'Connect to Redis', 'Connect to Redis with a password: new Redis({ password }).'],
      ['ioredis/README.md#58', 'TLS Options', 'Alternatively, pass a rediss:// URL to connect to Redis over TLS.'],
      ['pg-connection-string/README.md#6', 'TCP Connections', 'TCP connections over TLS: if username and password are included, they should be urlencoded.'],
    ]);
    expect([...cited(r)].sort()).toEqual(['ioredis/README.md#57', 'ioredis/README.md#58', 'ioredis/README.md#7']);
  });

  it('put first, in the lede and in its document, the passage whose heading says what is asked', () => {
    const r = over('How do I limit the size of uploaded files with multer?', [
      ['multer/README.md#29', 'Error handling', 'Multer errors carry a code such as LIMIT_FILE_SIZE when an uploaded file is over the size limit.'],
      ['multer/README.md#4', 'Usage', 'Upload files with multer: multer({ dest }) stores each uploaded file on disk.'],
      ['multer/README.md#24', 'API > limits', '```javascript\nconst upload = multer({ limits: { fileSize: 1e6 } })\n```'],
    ]);
    expect(r.sections[0]!.paragraphs.map((p) => p.citations[0]!.sourceId)).toEqual(['multer/README.md#24', 'multer/README.md#29']);
    expect(r.summary).toMatch(/^The documents say: multer\/README\.md \(API > limits\): “const upload = multer/);
  });

  it('put first the passage whose heading says two of the question\'s words as it does ("Default Labels"), over one that says a verb of it', () => {
    const r = over('How do I add default labels to all metrics in prom-client?', [
      ['prom-client/README.md#40', 'Labels > Strongly typed Labels', 'Typescript can enforce label names on a metric:\n\n```typescript\nconst client = require(\'prom-client\');\nconst counter = new client.Counter({\n  name: \'metric_name\',\n  // add `as const` here to enforce label names\n  labelNames: [\'method\'] as const,\n});\n```'],
      ['prom-client/README.md#12', 'API > Default metrics', 'To apply generic labels to all default metrics, pass an object to the `labels` property of collectDefaultMetrics.'],
      ['prom-client/README.md#44', 'Labels > Default Labels (segmented by registry)', 'Static labels may be applied to every metric emitted by a registry:\n\n```js\nconst client = require(\'prom-client\');\nconst defaultLabels = { serviceName: \'api-v1\' };\nclient.register.setDefaultLabels(defaultLabels);\n```'],
    ]);
    expect(r.summary).toMatch(/^The documents say: prom-client\/README\.md \(Labels > Default Labels \(segmented by registry\)\): “client\.register\.setDefaultLabels/);
    expect(r.sections[0]!.paragraphs[0]!.citations[0]!.sourceId).toBe('prom-client/README.md#44');
  });

  it('keep the passage that answers first in its document\'s section, the others in the document\'s order', () => {
    const r = over('How do I limit the size of uploaded files with multer?', [
      ['multer/README.md#24', 'API > limits', 'Set limits: { fileSize } to bound the size of each uploaded file.'],
      ['multer/README.md#29', 'Error handling', 'An uploaded file over the size limit fails with LIMIT_FILE_SIZE.'],
      ['multer/README.md#4', 'Usage', 'Uploaded files over the size limit are not stored.'],
    ]);
    expect(r.sections[0]!.paragraphs.map((p) => p.citations[0]!.sourceId)).toEqual(['multer/README.md#24', 'multer/README.md#4', 'multer/README.md#29']);
  });

  it('do not widen a how-to question for "all": it asks for the one way to do a thing', () => {
    expect(cited(extractiveReport(task('How do I set the TLS options on all the connections?'), prose)).size).toBeLessThanOrEqual(8);
  });

  it('put first the passages of the document named for what is asked: busboy\'s own README before multer\'s', () => {
    const r = over('How do I limit the number of files busboy accepts?', [
      ['multer/README.md#24', 'API > limits', 'Multer passes limits to busboy: set limits.files to bound the number of files.'],
      ['busboy/README.md#9', 'Exports', 'limits.files - integer - For multipart forms, the max number of file fields.'],
    ]);
    expect(r.sections[0]!.title).toBe('busboy/README.md');
  });
});
