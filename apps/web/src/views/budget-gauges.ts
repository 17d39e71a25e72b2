import type { Run } from '@orrery/protocol';
import { h } from '../dom.js';
import { count, dollars, seconds, tokens } from '../format.js';

interface Gauge {
  label: string;
  used: number;
  max: number;
  text: string;
}

/** Seconds the run has used of its wall-clock budget: to now while it runs, to its end once it ended. */
function wallSeconds(run: Run, now: number): number {
  const end = run.finishedAt ? Date.parse(run.finishedAt) : now;
  return Math.max(0, (end - run.budgetLedger.startedAtMs) / 1000);
}

/** Budget gauges: tokens, tasks, rounds, seconds and dollars used of the run's budget (in-flight reservations included, as the budget counts them), and the usage behind the cost. */
export function budgetGauges(run: Run | undefined, now = Date.now()): HTMLElement {
  if (!run) return h('p', { class: 'hint' }, 'Loading the budget…');
  const b = run.budget;
  const used = run.budgetLedger.used;
  // Reserved for tasks in flight: the budget counts them as spent already.
  const open = Object.values(run.budgetLedger.reservations).reduce((o, r) => ({ tasks: o.tasks + r.tasksOpen, tokens: o.tokens + r.tokensOpen, costUsd: o.costUsd + r.costOpen }), { tasks: 0, tokens: 0, costUsd: 0 });
  const inFlight = (n: number) => (n > 0 ? ` (${count(n)} in flight)` : '');
  const wall = wallSeconds(run, now);
  const usage = run.usage;
  const gauges: Gauge[] = [
    { label: 'Tokens', used: used.tokens + open.tokens, max: b.maxTokens, text: `${count(used.tokens + open.tokens)} of ${count(b.maxTokens)}${inFlight(open.tokens)}` },
    { label: 'Tasks', used: used.tasks + open.tasks, max: b.maxTasks, text: `${count(used.tasks + open.tasks)} of ${count(b.maxTasks)}${inFlight(open.tasks)}` },
    { label: 'Rounds', used: run.budgetLedger.roundsStarted, max: b.maxRounds, text: `${run.budgetLedger.roundsStarted} of ${b.maxRounds}` },
    { label: 'Seconds', used: wall, max: b.maxWallSeconds, text: `${seconds(wall)} of ${seconds(b.maxWallSeconds)}` },
    { label: 'Cost', used: used.costUsd + open.costUsd, max: b.maxCostUsd, text: `${dollars(used.costUsd + open.costUsd)} of ${dollars(b.maxCostUsd)}` },
  ];
  return h(
    'dl',
    { class: 'gauges' },
    ...gauges.flatMap((g) => {
      const id = `gauge-${g.label.toLowerCase()}`;
      return [
        h('dt', { id: `${id}-label` }, g.label),
        h(
          'dd',
          null,
          h('meter', { id, min: 0, max: g.max, value: Math.min(g.used, g.max), low: g.max * 0.7, high: g.max * 0.85, optimum: 0, 'aria-labelledby': `${id}-label ${id}-text` }),
          h('span', { id: `${id}-text`, class: 'gauge-text' }, g.text),
        ),
      ];
    }),
    h('dt', null, 'Usage'),
    h(
      'dd',
      { id: 'gauge-usage' },
      h(
        'span',
        { class: 'gauge-text' },
        `${tokens(usage.inputTokens)} in, ${tokens(usage.outputTokens)} out${usage.cacheReadTokens ? `, ${tokens(usage.cacheReadTokens)} cached` : ''}${usage.webSearchRequests ? `, ${count(usage.webSearchRequests)} web searches` : ''}`,
      ),
    ),
  );
}
