import { SearchTaskSchema, type Plan, type Subtopic } from '@orrery/protocol';
import { describe, expect, it } from 'vitest';
import { buildSearchTask } from './task-builder';

const run = { id: '6f1c1a8e-4f9b-4a57-9a42-3f0a5a0c9d11', engine: 'anthropic' as const, topic: 'EU battery rules' };
const subtopic: Subtopic = { id: 'recycling', title: 'Recycling', query: 'battery recycling', facetTerms: ['recycling'], excludeTerms: [], origin: 'plan' };
const budget = { maxTokens: 1000, maxToolCalls: 40, maxCostUsd: 1, deadline: new Date(0).toISOString() };

describe('buildSearchTask', () => {
  it("carries the lead's brief: its objective, key questions, source types and effort", () => {
    const brief = { objective: 'Find the recovery rates recyclers must meet', keyQuestions: ['Which rates apply from 2027?'], sourceTypes: ['EU regulation text'], toolCalls: 12 };
    const t = buildSearchTask(run, { ...subtopic, brief }, 1, 1, [], { findingsPerTask: 6, maxCitations: 25 }, budget);
    expect(t.context.objective).toBe(brief.objective);
    expect(t.context.keyQuestions).toEqual(brief.keyQuestions);
    expect(t.context.sourceGuidance).toMatch(/^Look first in: EU regulation text\. Prefer primary sources/);
    expect(t.budget?.maxToolCalls).toBe(12);
  });

  it('without a brief, the template objective and the task limit', () => {
    const t = buildSearchTask(run, subtopic, 1, 1, [], { findingsPerTask: 6, maxCitations: 25 }, budget);
    expect(t.context.objective).toBe('Find evidence about "Recycling" as part of research on "EU battery rules"');
    expect(t.context.keyQuestions).toBeUndefined();
    expect(t.budget?.maxToolCalls).toBe(40);
  });

  it('asks for the condensed report the researcher prompt asks for, not one-line claims', () => {
    const t = buildSearchTask(run, subtopic, 1, 1, [], { findingsPerTask: 12, maxCitations: 25 }, budget);
    expect(t.context.outputFormat).toMatch(/condensed report/);
    expect(t.context.outputFormat).toMatch(/could not find/);
    expect(t.context.outputFormat).toMatch(/disagree/);
    expect(t.context.outputFormat).not.toMatch(/one-sentence/);
  });

  it('carries the plan’s shape and the subtopic’s side, so the spoke reads neither from the topic again', () => {
    const side = { label: 'Lincoln', name: 'Abraham Lincoln', authors: ['Abraham Lincoln'], terms: [] };
    const sided: Subtopic = { ...subtopic, id: 'side-lincoln', side };
    const plan: Plan = { classification: 'breadth', shape: { kind: 'comparative', sides: ['Lincoln', 'FDR'], subject: 'war' }, subtopics: [sided] };
    const t = buildSearchTask({ ...run, plan }, sided, 1, 1, [], { findingsPerTask: 6, maxCitations: 25 }, budget);
    expect(t.side).toEqual(side);
    expect(t.context.shape).toEqual(plan.shape);
    expect(SearchTaskSchema.parse(t)).toEqual(t);
    // Without a plan shape (a lead's own plan), neither is set.
    const plain = buildSearchTask(run, subtopic, 1, 1, [], { findingsPerTask: 6, maxCitations: 25 }, budget);
    expect(plain.side).toBeUndefined();
    expect(plain.context.shape).toBeUndefined();
  });

  it('carries the plan’s authors to every search, so a question that names who speaks is searched in their documents only', () => {
    const plan: Plan = { classification: 'breadth', shape: { kind: 'survey', sides: [], subject: 'taxes' }, subtopics: [subtopic], authors: ['Ronald Reagan'] };
    const t = buildSearchTask({ ...run, engine: 'corpus', plan }, subtopic, 1, 1, [], { findingsPerTask: 6, maxCitations: 25 }, budget);
    expect(t.context.scope.authors).toEqual(['Ronald Reagan']);
    expect(SearchTaskSchema.parse(t)).toEqual(t);
    expect(buildSearchTask(run, subtopic, 1, 1, [], { findingsPerTask: 6, maxCitations: 25 }, budget).context.scope.authors).toBeUndefined();
  });
});
