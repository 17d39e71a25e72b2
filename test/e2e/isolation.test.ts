import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Stack, startStack } from '../support/stack';

describe('isolation: nothing of one run reaches another', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack('isolation', { workers: 2 });
  });
  afterAll(async () => stack?.stop());

  it('two concurrent runs never share a payload', async () => {
    const [a, b] = await Promise.all([
      stack.client.submit({ topic: 'Kestrel River dams MARKERALPHA' }),
      stack.client.submit({ topic: 'Kestrel River floods MARKERBRAVO' }),
    ]);
    const [ea, eb] = await Promise.all([stack.follow(a.id), stack.follow(b.id)]);
    expect(ea.at(-1)).toMatchObject({ type: 'run.finished', status: 'done' });
    expect(eb.at(-1)).toMatchObject({ type: 'run.finished', status: 'done' });

    const jobs = [...(await stack.jobs('subagents')), ...(await stack.jobs('coordinator'))];
    const ofA = jobs.filter((j) => j.id!.startsWith(a.id));
    const ofB = jobs.filter((j) => j.id!.startsWith(b.id));
    expect(ofA.filter((j) => j.name === 'search').length).toBeGreaterThan(0);
    expect(ofB.filter((j) => j.name === 'search').length).toBeGreaterThan(0);
    expect(ofA.length + ofB.length).toBe(jobs.length);
    for (const j of ofA) {
      const payload = JSON.stringify([j.data, j.returnvalue]);
      expect(payload).not.toContain('MARKERBRAVO');
      expect(payload).not.toContain(b.id);
    }
    for (const j of ofB) {
      const payload = JSON.stringify([j.data, j.returnvalue]);
      expect(payload).not.toContain('MARKERALPHA');
      expect(payload).not.toContain(a.id);
    }
    // Each run's events speak only of that run.
    expect(JSON.stringify(ea)).not.toContain('MARKERBRAVO');
    expect(JSON.stringify(eb)).not.toContain('MARKERALPHA');
    // Every task payload carries its whole context explicitly, the question's shape included (the plan carries it).
    for (const j of [...ofA, ...ofB].filter((x) => x.name === 'search')) {
      expect(Object.keys(j.data.context).sort()).toEqual(['excerpts', 'objective', 'outputFormat', 'scope', 'shape', 'sourceGuidance', 'topic']);
    }
  });

  it('a worker refuses a payload that carries anything beyond its schema, without retrying it', async () => {
    const { id } = await stack.client.submit({ topic: 'Kestrel River navigation' });
    await stack.follow(id);
    const sample = (await stack.jobs('subagents')).find((j) => j.name === 'search' && j.id!.startsWith(id))!;
    const smuggled = { ...sample.data, taskId: `${sample.data.taskId}.smuggled`, sharedMemory: { otherRun: 'secret' } };
    const job = await stack.queues.subagents.add('search', smuggled, { jobId: smuggled.taskId, attempts: 3 });
    await new Promise<void>((resolve) => {
      const poll = async () => ((await job.getState()) === 'failed' ? resolve() : setTimeout(poll, 100));
      void poll();
    });
    const failed = await stack.queues.subagents.getJob(job.id!);
    expect(failed!.failedReason).toMatch(/invalid task payload: .*sharedMemory/);
    expect(failed!.attemptsMade).toBe(1);
  });
});
