import type { Plan, Subtopic } from '@orrery/protocol';
import { ApiError, UnauthorizedError, api } from '../api.js';
import { h } from '../dom.js';
import { counted, percent } from '../format.js';

const terms = (value: string) => value.split(',').map((t) => t.trim()).filter(Boolean);

/**
 * A run paused for plan review: each subtopic's title, query and scope as fields to edit (or drop), the coverage
 * check, and Dispatch / Cancel. The server checks the edited plan (scopes apart, within budget) and says why not.
 */
export function planReviewPanel(runId: string, plan: Plan, onAnswered: () => void): HTMLElement {
  const status = h('p', { role: 'status', class: 'hint', id: 'plan-status' });
  const dispatch = h('button', { type: 'submit', id: 'plan-dispatch' }, 'Dispatch this plan');
  const stop = h('button', { type: 'button', id: 'plan-cancel', class: 'secondary' }, 'Cancel the run');
  const rows = plan.subtopics.map((s, i) => {
    const field = (name: string, label: string, value: string, multi = false) => {
      const id = `plan-${i}-${name}`;
      const input = multi ? h('textarea', { id, rows: 2 }, value) : h('input', { id, value });
      return { input, el: h('div', { class: 'field' }, h('label', { for: id }, label), input) };
    };
    const title = field('title', 'Title', s.title);
    const query = field('query', 'Query', s.query, true);
    const scope = field('scope', 'Scope terms (comma-separated)', s.facetTerms.join(', '));
    const exclude = field('exclude', 'Stays out of', s.excludeTerms.join(', '));
    const keep = h('input', { type: 'checkbox', id: `plan-${i}-keep`, checked: true });
    const el = h(
      'fieldset',
      { class: 'plan-subtopic', 'data-subtopic': s.id },
      h('legend', null, h('label', { class: 'inline' }, keep, ` ${s.id}`), s.origin === 'coverage-check' ? h('span', { class: 'hint' }, ' added by the coverage check') : null),
      title.el,
      query.el,
      scope.el,
      exclude.el,
    );
    const read = (): Subtopic | undefined =>
      keep.checked ? { ...s, title: title.input.value.trim(), query: query.input.value.trim(), facetTerms: terms(scope.input.value), excludeTerms: terms(exclude.input.value) } : undefined;
    return { el, read };
  });

  async function answer(body: Parameters<typeof api.decide>[1]): Promise<void> {
    dispatch.disabled = stop.disabled = true;
    status.textContent = 'Sending…';
    try {
      await api.decide(runId, body);
      status.textContent = body.action === 'continue' ? 'Sent: the plan is dispatched.' : 'Sent: the run is cancelled.';
      onAnswered();
    } catch (err) {
      dispatch.disabled = stop.disabled = false;
      if (!(err instanceof UnauthorizedError)) status.textContent = `Not dispatched: ${err instanceof ApiError ? err.message : (err as Error).message}`;
    }
  }

  const form = h('form', { class: 'plan-form' }, ...rows.map((r) => r.el), h('div', { class: 'actions' }, dispatch, stop), status);
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const subtopics = rows.flatMap((r) => r.read() ?? []);
    void answer({ action: 'continue', plan: { ...plan, subtopics } });
  });
  stop.addEventListener('click', () => void answer({ action: 'stop' }));

  // Feedback in words: the planner revises the plan, and this panel is drawn again with the revision.
  const feedback = h('textarea', { id: 'plan-feedback', rows: 2, placeholder: 'e.g. leave out the 1800s; add tariffs' });
  const revise = h('button', { type: 'submit', id: 'plan-revise', class: 'secondary' }, 'Revise the plan');
  const reviseForm = h('form', { class: 'plan-feedback' }, h('div', { class: 'field' }, h('label', { for: 'plan-feedback' }, 'Or say what to change'), feedback), h('div', { class: 'actions' }, revise));
  reviseForm.addEventListener('submit', (e) => {
    e.preventDefault();
    const text = feedback.value.trim();
    if (!text) return;
    revise.disabled = dispatch.disabled = stop.disabled = true;
    status.textContent = 'Revising…';
    api.decide(runId, { action: 'revise', feedback: text }).then(onAnswered, (err: unknown) => {
      revise.disabled = dispatch.disabled = stop.disabled = false;
      if (!(err instanceof UnauthorizedError)) status.textContent = `Not revised: ${err instanceof ApiError ? err.message : (err as Error).message}`;
    });
  });

  const c = plan.coverage;
  const years = plan.excludeYears ?? [];
  return h(
    'section',
    { class: 'card review', id: 'plan-review-panel', 'aria-labelledby': 'plan-review-title' },
    h('h2', { id: 'plan-review-title', tabindex: '-1' }, 'Review the plan before it runs'),
    h('p', null, `A ${plan.classification} plan of ${counted(plan.subtopics.length, 'subtopic')}. Nothing has been dispatched yet: edit, drop, then dispatch.`),
    c
      ? h('p', { id: 'plan-coverage' }, `Coverage check: ${percent(c.share)} of the scouting evidence (threshold ${percent(c.threshold)}), largest overlap ${percent(c.maxOverlap)}${c.uncoveredFacets.length ? `; not covered: ${c.uncoveredFacets.join(', ')}` : ''}.`)
      : null,
    years.length ? h('p', { id: 'plan-years' }, `Every search leaves out ${years.map((w) => `${w.from}–${w.to}`).join(', ')}.`) : null,
    plan.authors?.length ? h('p', { id: 'plan-authors' }, `Every search reads only what ${plan.authors.join(' and ')} wrote or said.`) : null,
    reviseForm,
    form,
  );
}
