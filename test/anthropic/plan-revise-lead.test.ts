/**
 * Claude's lead revises its own plan by a person's words (issue 47): one planner request carrying the proposed plan
 * and the feedback, answered with structured output under the real API's rules (the fake refuses what the API
 * refuses: thinking on, no forced tool_choice), charged to the run; the revised plan is the one dispatched.
 */
import type { Plan, Run, SubagentTask } from '@orrery/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeMessagesApi, type FakeHandler, type FakeRequest, reply } from '../support/fake-messages-api';
import { researchScript } from '../support/fake-research-script';
import { waitFor } from '../support/service-processes';
import { type Stack, startStack } from '../support/stack';

const userText = (req: FakeRequest): string => {
  const first = req.messages[0];
  return typeof first?.content === 'string' ? first.content : (first?.content ?? []).map((b: { text?: string }) => b.text ?? '').join('\n');
};
const data = (text: string, label: string): string | undefined => new RegExp(`<untrusted_data label="${label}">\\n([\\s\\S]*?)\\n</untrusted_data>`).exec(text)?.[1];

/**
 * The lead as the script plays it, and, asked to revise, as a model would read "leave out the 1800s; add tariffs": its
 * plan again, a tariffs subtopic added, the years listed.
 */
function leadPlanner(base: FakeHandler): FakeHandler {
  return async (req) => {
    const text = userText(req);
    const feedback = data(text, 'feedback');
    if (!feedback) return base(req);
    const plan = JSON.parse(data(text, 'plan')!) as { classification: string; subtopics: Array<Record<string, unknown>> };
    const added = /add (\w+)/.exec(feedback)?.[1] ?? 'more';
    return reply.json({
      classification: plan.classification,
      subtopics: [
        ...plan.subtopics.map((s) => ({ excludeTerms: [], ...s })),
        { title: `Kestrel River ${added}`, query: `kestrel river ${added}`, facetTerms: [added], excludeTerms: [], objective: `Establish the ${added} on the Kestrel River since 1900`, keyQuestions: [`Which ${added} applied?`], sourceTypes: ['official records'], toolCalls: 5 },
      ],
      confidence: 0.8,
      rationale: `added ${added}; left out the 1800s as asked`,
      excludeYears: /1800s/.test(feedback) ? [{ from: 1800, to: 1899 }] : [],
    });
  };
}

describe("Claude's lead revises its plan by feedback", () => {
  let api: FakeMessagesApi;
  let stack: Stack;
  beforeAll(async () => {
    api = await FakeMessagesApi.start();
    const script = researchScript({ subtopics: 2 });
    api.scriptByRole({ ...script, planner: leadPlanner(script['planner']!) });
    stack = await startStack('plan-revise-lead', { workers: 1, env: { ENGINE: 'anthropic', CLAUDE_DEFAULT_CORPUS: 'kestrel', ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: api.baseURL, WEB_SEARCH: 'off' } });
  }, 90_000);
  afterAll(async () => {
    await stack?.stop();
    await api?.close();
  });

  it('one planner request with the plan and the feedback; the revised plan waits, is charged, and is the one dispatched', async () => {
    const { id } = await stack.client.submit({ topic: 'The Kestrel River: fisheries and floods', review: 'plan' });
    let run: Run | undefined;
    await waitFor(async () => (run = await stack.client.run(id)).status === 'needs_review', 60_000, 'the plan to be proposed');
    const proposed = run!.proposedPlan!;
    const before = api.accepted.length;

    const res = await fetch(`${stack.coordinator.url}/v1/research/${id}/decision`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ action: 'revise', feedback: 'leave out the 1800s; add tariffs' }) });
    const body = (await res.json()) as { proposedPlan: Plan; revision: { changes: string[] }; message?: string };
    expect(res.status, body.message).toBe(200);
    expect(api.rejected.map((r) => r.validationError)).toEqual([]);
    const asked = api.accepted.slice(before);
    expect(asked.map((r) => r.role)).toEqual(['planner']);
    const prompt = userText(asked[0]!.body as FakeRequest);
    expect(data(prompt, 'feedback')).toBe('leave out the 1800s; add tariffs');
    for (const s of proposed.subtopics) expect(data(prompt, 'plan')).toContain(s.title);
    // Structured output with the lead's thinking, never a forced tool.
    expect(asked[0]!.body.output_config?.format?.type).toBe('json_schema');
    expect(asked[0]!.body.tool_choice).toBeUndefined();

    const revised = body.proposedPlan;
    expect(revised.subtopics.map((s) => s.title)).toEqual([...proposed.subtopics.map((s) => s.title), 'Kestrel River tariffs']);
    expect(revised.excludeYears).toEqual([{ from: 1800, to: 1899 }]);
    expect(body.revision.changes).toContain('added "Kestrel River tariffs"');
    const waiting = await stack.client.run(id);
    expect(waiting.status).toBe('needs_review');
    expect(waiting.usage.inputTokens).toBeGreaterThan(run!.usage.inputTokens);

    expect((await fetch(`${stack.coordinator.url}/v1/research/${id}/decision`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ action: 'continue' }) })).status).toBe(202);
    expect(await stack.client.waitForEnd(id)).toBe('done');
    const done = await stack.client.run(id);
    expect(done.rounds[0]!.subtopicIds).toEqual(revised.subtopics.map((s) => s.id));
    const tasks = (await stack.jobs('subagents')).filter((j) => j.id!.startsWith(id) && j.name === 'search').map((j) => j.data as Extract<SubagentTask, { kind: 'search' }>);
    const tariffs = tasks.find((t) => t.subtopicId === revised.subtopics.at(-1)!.id)!;
    expect(tariffs.context.objective).toMatch(/since 1900\. Leave out anything from 1800–1899\./);
  });
});
