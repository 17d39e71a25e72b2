import { createInterface } from 'node:readline';
import type { Plan } from '@orrery/protocol';
import { type OrreryClient, OrreryHttpError } from '../client/orrery-client';
import { forTerminal } from '../terminal/terminal-text';
import { planText } from './plan-text';

const QUESTION = 'Approve this plan? [Enter/y approves, n stops the run, or say what to change] ';

/**
 * Asks about a proposed plan until it is approved or stopped: each other answer is sent as feedback in words and the
 * revised plan asked about again. Answers are read line by line from stdin, a terminal's or a pipe's, so scripts can
 * answer too. When stdin ends first, a plan with an auto-approval is left to it; one without is stopped, as nobody
 * is left to answer it.
 */
export async function reviewPlan(client: OrreryClient, id: string, plan: Plan, autoApproves: boolean, signal: AbortSignal): Promise<void> {
  const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: process.stdin.isTTY === true });
  // On a terminal readline takes Ctrl-C as a key: it is passed on as the signal the CLI cancels its run on.
  rl.on('SIGINT', () => process.kill(process.pid, 'SIGINT'));
  signal.addEventListener('abort', () => rl.close(), { once: true });
  const answers = rl[Symbol.asyncIterator]();
  const say = (text: string): void => void process.stderr.write(forTerminal(text));
  try {
    say(planText(plan));
    for (;;) {
      say(QUESTION);
      const next = await answers.next();
      if (next.done) {
        if (autoApproves) return say('\n[orrery] stdin ended: the plan waits for its auto-approval\n');
        await client.decide(id, { action: 'stop' });
        return say('\n[orrery] stdin ended without an answer: the run is stopped\n');
      }
      const answer = next.value.trim();
      // A piped answer is not echoed by a terminal: shown, the transcript reads as a conversation.
      if (!process.stdin.isTTY) say(`${answer}\n`);
      try {
        if (answer === '' || /^y(es)?$/i.test(answer)) {
          await client.decide(id, { action: 'continue' });
          return say('[orrery] plan approved\n');
        }
        if (/^no?$/i.test(answer)) {
          await client.decide(id, { action: 'stop' });
          return say('[orrery] plan stopped\n');
        }
        const revised = await client.revisePlan(id, answer);
        say(`[orrery] revised: ${revised.revision.changes.join('; ') || 'no change'}\n`);
        say(planText(revised.proposedPlan));
      } catch (err) {
        // 409: the review was answered meanwhile (its auto-approval, or another client).
        if (err instanceof OrreryHttpError && err.status === 409) {
          return say(`[orrery] ${err.message}\n`);
        }
        // 400: feedback the plan cannot take; the reason is shown and the plan asked about again.
        if (err instanceof OrreryHttpError && err.status === 400) say(`[orrery] ${err.message}\n`);
        else throw err;
      }
    }
  } finally {
    rl.close();
  }
}
