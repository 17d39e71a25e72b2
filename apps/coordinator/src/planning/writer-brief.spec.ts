import type { Plan } from '@orrery/protocol';
import { describe, expect, it } from 'vitest';
import { writerBrief } from './writer-brief';

const plan = (over: Partial<Plan> = {}): Plan => ({
  classification: 'breadth',
  subtopics: [{ id: 'a', title: 'A', query: 'a', facetTerms: [], excludeTerms: [], origin: 'plan', brief: { objective: 'Find A', keyQuestions: [], sourceTypes: [], toolCalls: 5 } }],
  ...over,
});
const report = { taskId: 't1', subtopicId: 'a', report: { text: 'found A', gaps: ['no B'], conflicts: [] } };

describe('writerBrief', () => {
  it("carries the lead's plan, its chosen form and language, and the researchers' reports", () => {
    const b = writerBrief({ topic: 'Compare A and B' }, plan({ rationale: 'why', answerForm: 'chronology', language: 'de' }), [report]);
    expect(b).toEqual({ classification: 'breadth', answerForm: 'chronology', language: 'de', rationale: 'why', objectives: [{ subtopicId: 'a', title: 'A', objective: 'Find A' }], reports: [report] });
  });

  it("takes the rules' form and language where the plan names none", () => {
    expect(writerBrief({ topic: 'Compare PostgreSQL and MySQL' }, plan(), [])).toMatchObject({ answerForm: 'comparison-table', language: 'en' });
    expect(writerBrief({ topic: 'Quelle est la population de Lyon ?' }, plan({ classification: 'straightforward' }), [])).toMatchObject({ answerForm: 'direct-answer', language: 'fr' });
  });
});
