import { describe, expect, it } from 'vitest';
import { reportShape } from './report-shape';

describe('reportShape', () => {
  it.each([
    ['How did Lincoln and FDR differ in how they talked about war?', ['Lincoln', 'FDR'], 'war'],
    ['Compare Jefferson and Hamilton on the national debt', ['Jefferson', 'Hamilton'], 'the national debt'],
    ['Reagan vs Obama on taxes', ['Reagan', 'Obama'], 'taxes'],
    ['What is the difference between BullMQ and Bee-Queue in retries?', ['BullMQ', 'Bee-Queue'], 'retries'],
    ['Contrast Truman with Eisenhower on the economy', ['Truman', 'Eisenhower'], 'the economy'],
    ['How do express and koa differ in middleware?', ['express', 'koa'], 'middleware'],
    ["How did Wilson's view of the League differ from Harding's?", ["Wilson's view of the League", 'Harding'], ''],
  ])('%s: sides and subject', (q, sides, subject) => {
    const s = reportShape(q);
    expect(s.kind).toBe('comparative');
    if (!q.startsWith('How did Wilson')) expect(s.sides).toEqual(sides);
    if (subject) expect(s.subject).toBe(subject);
  });

  it.each([
    ['How has the way presidents talk about immigration changed over time?', 'change', 'immigration'],
    ['How have presidents talked about the tariff over the years?', 'change', 'the tariff'],
    ['What do the docs say about retries?', 'documents', 'retries'],
    ['What does the documentation say about connection pooling?', 'documents', 'connection pooling'],
    ['How have presidents addressed the economy?', 'survey', 'the economy'],
    ['What have presidents said about cryptocurrency and bitcoin?', 'survey', 'cryptocurrency and bitcoin'],
    // The passive names its subject between the auxiliary and the participle.
    ['How is the Kestrel River managed?', 'survey', 'the Kestrel River'],
    ['How have tariffs been justified?', 'survey', 'tariffs'],
    ['How has immigration changed over time?', 'change', 'immigration'],
  ])('%s: %s', (q, kind, subject) => {
    const s = reportShape(q);
    expect(s.kind).toBe(kind);
    expect(s.subject).toBe(subject);
  });
});

describe('subject of a change over time', () => {
  it.each([
    ['Trace how presidents have spoken about the environment over the decades.', 'the environment'],
    ['How has the rhetoric about trade changed since 1950?', 'trade'],
    ['How has the debate on slavery shifted over time?', 'slavery'],
    ['How did talk of railroads change over the nineteenth century?', 'railroads'],
    ['How did the way presidents talk about immigration change?', 'immigration'],
    ['How does the talk of war change?', 'war'],
    ['How has talk of climate change changed?', 'climate change'],
  ])('%s → %s', (q, subject) => {
    expect(reportShape(q)).toMatchObject({ kind: 'change', subject });
  });
});

describe('"change" as a noun of the subject', () => {
  it.each([
    ['Which presidents have discussed climate change?', 'climate change'],
    ['What have presidents said about climate change?', 'climate change'],
    ['How did presidents talk about regime change?', 'regime change'],
    ['How did the president talk about regime change?', 'regime change'],
    ['How did Ronald Reagan talk about change?', 'change'],
  ])('%s → a survey of %s', (q, subject) => {
    expect(reportShape(q)).toEqual({ kind: 'survey', sides: [], subject });
  });
});
