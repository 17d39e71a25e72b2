import type { Decision } from '@orrery/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Stack, startStack } from '../support/stack';

describe('a question with one answer, over the bundled speeches: one search, and a report that opens with the answer', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack('answer', { workers: 1 });
  });
  afterAll(async () => stack?.stop());

  it.each([
    ['In what year did Franklin D. Roosevelt first deliver a State of the Union address?', '1934', 'sotu-1934-roosevelt-'],
    ['Which president first mentioned the Panama Canal?', 'Chester A. Arthur', 'sotu-1881-arthur-'],
  ])('%s', async (topic, answer, speech) => {
    const { id } = await stack.client.submit({ topic, corpus: 'sotu' });
    await stack.follow(id);
    const run = await stack.client.run(id);
    expect(run.status).toBe('done');
    expect(run.plan?.classification).toBe('straightforward');
    expect(run.counters.tasksDispatched).toBe(1);
    const report = await stack.client.report(id);
    expect(report.summary.startsWith(answer)).toBe(true);
    expect(report.summaryCitations?.[0]?.sourceId.startsWith(speech)).toBe(true);
    const md = await stack.client.reportMarkdown(id);
    expect(md.split('\n')[2]).toMatch(new RegExp(`^${answer}.*\\[1\\]$`));
    const decisions = (await (await fetch(`${stack.coordinator.url}/v1/research/${id}/decisions`)).json()) as Decision[];
    expect(decisions.some((d) => d.decisionType === 'answer' && d.signals.found === true)).toBe(true);
  });
});
