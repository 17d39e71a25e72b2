import type { Finding } from '@orrery/protocol';
import { describe, expect, it } from 'vitest';
import { GENERIC_VOCABULARY } from '@orrery/passages';
import { documentsReport } from './documents-prose';

const table = 'What you need | Package\nRetries, timeouts, circuit breakers | `@nestjs/resilience`';
const passages = [
  { id: 'bullmq/README.md#4', title: 'bullmq/README.md > Retrying', text: 'Failed jobs are retried when `attempts` is set; `backoff` spaces the retries.' },
  { id: '@nestjs__common/README.md#9', title: '@nestjs__common/README.md > First-party packages', text: table },
  { id: '@nestjs__core/README.md#9', title: '@nestjs__core/README.md > First-party packages', text: table },
  { id: '@nestjs__platform-express/README.md#9', title: '@nestjs__platform-express/README.md > First-party packages', text: `${table}\n` },
];
const findings: Finding[] = passages.map((p, i) => ({ id: `${p.id}~q`, claim: p.text, sourceId: p.id, quote: p.text.split('\n')[0]!, subtopicId: 's', relevance: { score: 4 - i, topicTerms: [], facetTerms: [] } }));

describe('documentsReport', () => {
  it('cites a passage that other documents hold word for word once, naming where else it is', () => {
    const r = documentsReport(findings, new Map(passages.map((p) => [p.id, p.text])), new Map(passages.map((p) => [p.id, p.title])), { vocabulary: GENERIC_VOCABULARY, isName: () => false });
    expect(r.sections.map((s) => s.title)).toEqual(['bullmq/README.md', '@nestjs__common/README.md']);
    const [copy] = r.sections[1]!.paragraphs;
    expect(copy!.text).toMatch(/^First-party packages \(the same in @nestjs__core\/README\.md and @nestjs__platform-express\/README\.md\): What you need/);
    expect(copy!.citations.map((c) => c.sourceId)).toEqual(['@nestjs__common/README.md#9', '@nestjs__core/README.md#9', '@nestjs__platform-express/README.md#9']);
    // The lede quotes the table once, and counts every document it cites.
    expect(r.summary.match(/Retries, timeouts|What you need/g)?.length ?? 0).toBeLessThanOrEqual(1);
    expect(r.summary).toMatch(/4 passages from 4 documents/);
  });
});
