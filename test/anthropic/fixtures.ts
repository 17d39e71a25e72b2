import type { SearchTask, SynthesizeTask } from '@orrery/protocol';
import type { PassageHit, PassageSearch, ProgressUpdate } from '../../libs/engine/src/engine';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { FakeMessagesApi } from '../support/fake-messages-api';

export const PASSAGES: PassageHit[] = [
  { id: 'sotu-1990-p3', title: 'State of the Union 1990', text: 'Wind turbines now supply power to thousands of homes across the plains.', score: 0 },
  { id: 'sotu-1990-p4', title: 'State of the Union 1990', text: 'Solar panel efficiency has doubled within a decade of research.', score: 0 },
  { id: 'sotu-1991-p1', title: 'State of the Union 1991', text: 'Geothermal plants draw steady heat from the earth beneath Nevada.', score: 0 },
  { id: 'sotu-1991-p2', title: 'State of the Union 1991', text: 'Contact the energy office at grants@energy.example.gov for tidal grants.', score: 0 },
];

/** An in-memory PassageSearch: every query matches passages containing any of its words. */
export function makePassages(passages: PassageHit[] = PASSAGES): PassageSearch & { queries: string[] } {
  const queries: string[] = [];
  return {
    queries,
    search(query: string, limit: number) {
      queries.push(query);
      const words = query.toLowerCase().split(/\W+/).filter(Boolean);
      return passages.filter((p) => words.some((w) => p.text.toLowerCase().includes(w))).slice(0, limit);
    },
    get(id: string) {
      return passages.find((p) => p.id === id);
    },
  };
}

export function searchTask(over: Partial<SearchTask> = {}, context: Partial<SearchTask['context']> = {}): SearchTask {
  return {
    kind: 'search',
    taskId: 'run-1.r1.search.wind',
    runId: '6f1c1a8e-4f9b-4a57-9a42-3f0a5a0c9d11',
    round: 1,
    engine: 'anthropic',
    subtopicId: 'wind',
    query: 'wind power',
    maxFindings: 5,
    knownSourceIds: [],
    context: {
      objective: 'Find evidence about wind power',
      topic: 'renewable energy',
      scope: { include: ['wind'], exclude: ['solar'] },
      outputFormat: 'findings with verbatim quotes',
      sourceGuidance: 'prefer primary sources',
      excerpts: [],
      ...context,
    },
    ...over,
  };
}

export function synthesizeTask(over: Partial<SynthesizeTask> = {}): SynthesizeTask {
  return {
    kind: 'synthesize',
    taskId: 'run-1.synth',
    runId: '6f1c1a8e-4f9b-4a57-9a42-3f0a5a0c9d11',
    round: 2,
    engine: 'anthropic',
    context: {
      objective: 'Write the report',
      topic: 'renewable energy',
      scope: { include: [], exclude: [] },
      outputFormat: 'report',
      sourceGuidance: '',
      excerpts: [],
    },
    sections: [
      {
        subtopicId: 'wind',
        title: 'Wind',
        findings: [
          { id: 'f1', claim: 'Wind powers homes', sourceId: 'sotu-1990-p3', quote: 'Wind turbines now supply power', subtopicId: 'wind' },
          { id: 'f2', claim: 'Solar doubled', sourceId: 'sotu-1990-p4', quote: 'efficiency has doubled', subtopicId: 'wind' },
        ],
      },
    ],
    sources: [],
    maxCitations: 10,
    ...over,
  };
}

/** A progress reporter that remembers what it was told. */
export function recorder(): { updates: ProgressUpdate[]; progress: (u: ProgressUpdate) => void } {
  const updates: ProgressUpdate[] = [];
  return { updates, progress: (u) => void updates.push({ ...u }) };
}

/** Last message of a recorded request body. */
export const lastMessage = (body: { messages: Array<{ role: string; content: unknown }> }) => body.messages[body.messages.length - 1]!;

/**
 * A fake Messages API for the whole test file, reset after each test, with a check that every request
 * the code under test sent was valid for the real API.
 */
export function useFakeMessagesApi(onStart: (api: FakeMessagesApi) => void): void {
  let api: FakeMessagesApi;
  beforeAll(async () => {
    api = await FakeMessagesApi.start();
    onStart(api);
  });
  afterEach(() => {
    const rejected = api.rejected.map((r) => r.validationError);
    api.reset();
    expect(rejected).toEqual([]);
  });
  afterAll(async () => api.close());
}
