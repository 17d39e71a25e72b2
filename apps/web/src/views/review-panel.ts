import type { BudgetRequest, HumanDecision, Run } from '@orrery/protocol';
import { ApiError, UnauthorizedError, api } from '../api.js';
import { h } from '../dom.js';
import { counted, dollars, percent, seconds } from '../format.js';

const CAUSE = {
  'budget-exhausted-below-target': 'The budget ran out before the research reached its target coverage.',
  'judge-unsure': 'The judge was not sure whether more research would help.',
} as const;

const EXTRA = [
  { key: 'maxTasks', label: 'Extra tasks', value: 4 },
  { key: 'maxRounds', label: 'Extra rounds', value: 1 },
  { key: 'maxTokens', label: 'Extra tokens', value: '' },
  { key: 'maxWallSeconds', label: 'Extra seconds', value: '' },
  { key: 'maxCostUsd', label: 'Extra dollars', value: '' },
] as const satisfies readonly { key: keyof BudgetRequest; label: string; value: number | '' }[];

/** A run in needs_review: what it covered and missed, the budget it used, and Continue (with extra budget) / Stop. */
export function reviewPanel(run: Run, onAnswered: () => void): HTMLElement {
  const review = run.review!;
  const status = h('p', { role: 'status', class: 'hint' });
  const inputs = EXTRA.map((f) => ({ ...f, input: h('input', { id: `extra-${f.key}`, type: 'number', min: 0, step: f.key === 'maxCostUsd' ? 0.01 : 1, inputmode: 'decimal', value: f.value }) }));
  const continueButton = h('button', { type: 'submit', id: 'review-continue' }, 'Continue with extra budget');
  const stopButton = h('button', { type: 'button', id: 'review-stop', class: 'secondary' }, 'Stop and write the report');

  async function answer(decision: HumanDecision): Promise<void> {
    continueButton.disabled = stopButton.disabled = true;
    status.textContent = 'Sending…';
    try {
      await api.decide(run.id, decision);
      status.textContent = decision.action === 'continue' ? 'Sent: the run continues.' : 'Sent: the run stops and writes its report.';
      onAnswered();
    } catch (err) {
      continueButton.disabled = stopButton.disabled = false;
      if (!(err instanceof UnauthorizedError)) status.textContent = `Not sent: ${err instanceof ApiError ? err.message : (err as Error).message}`;
    }
  }

  const form = h(
    'form',
    { class: 'review-form' },
    h('fieldset', null, h('legend', null, 'Extra budget if you continue'), ...inputs.map((f) => h('div', { class: 'field' }, h('label', { for: f.input.id }, f.label), f.input))),
    h('div', { class: 'actions' }, continueButton, stopButton),
    status,
  );
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const extra: BudgetRequest = {};
    for (const f of inputs) if (Number(f.input.value) > 0) extra[f.key] = Number(f.input.value);
    void answer({ action: 'continue', ...(Object.keys(extra).length ? { extraBudget: extra } : {}) });
  });
  stopButton.addEventListener('click', () => void answer({ action: 'stop' }));

  const used = review.budgetUsed;
  return h(
    'section',
    { class: 'card review', id: 'review-panel', 'aria-labelledby': 'review-title' },
    h('h2', { id: 'review-title', tabindex: '-1' }, 'This run needs your decision'),
    h('p', { class: 'question' }, review.question),
    h('p', null, CAUSE[review.cause], ` Coverage ${percent(review.coverage)} after round ${review.round}; the target is ${percent(review.targetCoverage)}.`),
    h(
      'div',
      { class: 'columns' },
      h('div', null, h('h3', null, `Covered (${review.covered.length})`), h('ul', { id: 'review-covered' }, ...review.covered.map((s) => h('li', null, `${s.title ?? s.id}: ${counted(s.evidenceCount, 'finding')}`)))),
      h(
        'div',
        null,
        h('h3', null, `Missing or thin (${review.missing.length})`),
        h('ul', { id: 'review-missing' }, ...review.missing.map((s) => h('li', null, `${s.title ?? s.id}: ${s.status === 'thin' ? 'thin' : 'gap'}, ${counted(s.evidenceCount, 'finding')}`))),
      ),
    ),
    h('p', { id: 'review-budget' }, `Budget used: ${counted(used.tasks, 'task')}, ${counted(used.tokens, 'token')}, ${counted(used.rounds, 'round')}, ${seconds(used.wallSeconds)}, ${dollars(run.budgetLedger.used.costUsd)}.`),
    form,
  );
}
