/**
 * The SIGTERM drill: for every boundary inside a run's steps, a coordinator process holds the first step that reaches
 * it (STEP_HOLD_AT), is stopped with SIGTERM there, and a fresh coordinator takes over. Each run must still end `done`
 * with what an undisturbed run of the same question ends with: its findings and sources, every task counted completed,
 * its report, one `run.finished`, one `run.done` webhook. Real coordinator and worker processes on real Redis.
 */
import type { StoredRunEvent } from '@orrery/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OrreryClient } from '../../apps/cli/src/client/orrery-client';
import { STEP_BOUNDARIES } from '../../apps/coordinator/src/config/step-boundaries';
import { type ServiceProcess, startCoordinatorProcess, startWorkerProcess, waitFor } from './service-processes';
import { dropPrefix, FIXTURE_CORPUS, uniquePrefix } from './test-env';
import { WebhookReceiver } from './webhook-receiver';

const GRACE_MS = 1000;
const TOPIC = 'How did the Kestrel River salmon cooperative and the harbour ferry shape the town economy?';
/** Boundaries only a run paused for plan review reaches. */
const REVIEWED = new Set(['plan.proposed', 'review.answered']);

interface Outcome {
  status: string;
  counters: { tasksDispatched: number; tasksCompleted: number; tasksFailed: number; findings: number; sources: number };
  rounds: number;
  finished: number;
  reportReady: number;
  sections: number;
  doneHooks: number;
}

/**
 * `exit`: the step is still there when the grace ends, and is released; `sigterm`: it goes on while the process stops.
 * One file a mode, so the two halves of the drill run side by side.
 */
export function describeSigtermDrill(until: 'sigterm' | 'exit'): void {
  describe(`SIGTERM at every step boundary (held until ${until})`, () => {
    const prefix = uniquePrefix(`sigterm-drill-${until}`);
    let receiver: WebhookReceiver;
    let env: Record<string, string>;
    const procs: ServiceProcess[] = [];
    let baseline: Outcome;

    beforeAll(async () => {
      receiver = await WebhookReceiver.start();
      env = {
        QUEUE_PREFIX: prefix,
        ENGINE: 'corpus',
        CORPORA: `kestrel=${FIXTURE_CORPUS}`,
        DEFAULT_CORPUS: 'kestrel',
        SHUTDOWN_GRACE_MS: String(GRACE_MS),
        COORDINATOR_LOCK_MS: '3000',
        WEBHOOK_ALLOWED_HOSTS: `127.0.0.1:${receiver.port}`,
      };
      procs.push(await startWorkerProcess({ ...env, SUBAGENT_CONCURRENCY: '2' }, 'drill-worker'));
      const coordinator = await startCoordinatorProcess(env);
      procs.push(coordinator);
      baseline = await outcome(new OrreryClient(coordinator.url), await submitAndAnswer(new OrreryClient(coordinator.url), false));
      await coordinator.kill('SIGTERM');
    }, 180_000);
    afterAll(async () => {
      await Promise.all(procs.map((p) => p.kill('SIGKILL')));
      await receiver?.close();
      await dropPrefix(prefix);
    });

    async function submitAndAnswer(client: OrreryClient, review: boolean): Promise<string> {
      const { id } = await client.submit({ topic: TOPIC, webhook: { url: receiver.url(`/drill`) }, ...(review ? { review: 'plan' as const } : {}) });
      return id;
    }

    /** A plan review's answer, once the run waits for it (on whichever coordinator now answers). */
    async function approve(url: string, id: string): Promise<void> {
      const client = new OrreryClient(url);
      await waitFor(async () => (await client.run(id)).status === 'needs_review', 60_000, 'the plan review');
      const res = await fetch(`${url}/v1/research/${id}/decision`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ action: 'continue' }) });
      expect(res.status).toBe(202);
    }

    async function outcome(client: OrreryClient, id: string): Promise<Outcome> {
      const events: StoredRunEvent[] = [];
      const status = await client.waitForEnd(id, (e) => events.push(e));
      const run = await client.run(id);
      const report = status === 'done' ? await client.report(id) : undefined;
      // Deliveries are queued as the run ends: give the last one a moment.
      await waitFor(() => receiver.received.some((h) => h.body.includes(id) && h.body.includes('"run.done"')), 20_000, 'the run.done webhook').catch(() => undefined);
      const hooks = new Set(receiver.received.filter((h) => h.body.includes(id) && h.body.includes('"run.done"')).map((h) => h.headers['webhook-id']));
      return {
        status,
        counters: run.counters,
        rounds: run.rounds.filter((r) => r.status === 'completed').length,
        finished: events.filter((e) => e.type === 'run.finished').length,
        reportReady: events.filter((e) => e.type === 'report.ready').length,
        sections: report?.sections.length ?? 0,
        doneHooks: hooks.size,
      };
    }

    it('the undisturbed run ends done, with findings and a report', () => {
      expect(baseline).toMatchObject({ status: 'done', finished: 1, reportReady: 1, doneHooks: 1 });
      expect(baseline.counters.findings).toBeGreaterThan(0);
      expect(baseline.sections).toBeGreaterThan(0);
    });

    it.each(STEP_BOUNDARIES)('stopped at %s, the run ends done with nothing lost', { timeout: 240_000 }, async (boundary) => {
      const held = await startCoordinatorProcess({ ...env, STEP_HOLD_AT: boundary, STEP_HOLD_UNTIL: until });
      procs.push(held);
      const review = REVIEWED.has(boundary);
      const id = await submitAndAnswer(new OrreryClient(held.url), review);
      if (boundary === 'review.answered') await approve(held.url, id);
      await waitFor(() => held.output().includes(`held at ${boundary}`), 90_000, `the coordinator to hold at ${boundary}`);
      await held.kill('SIGTERM');

      const replacement = await startCoordinatorProcess(env);
      procs.push(replacement);
      if (boundary === 'plan.proposed') await approve(replacement.url, id);
      const ended = await Promise.race([
        outcome(new OrreryClient(replacement.url), id),
        new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`run ${id} stuck after a SIGTERM at ${boundary}`)), 90_000)),
      ]);
      await replacement.kill('SIGTERM');
      expect(ended, `held coordinator:\n${held.output()}\nreplacement:\n${replacement.output()}`).toEqual({ ...baseline, counters: { ...baseline.counters } });
      expect(ended.counters.tasksCompleted).toBe(ended.counters.tasksDispatched);
    });
  });
}
