import { ApiError, UnauthorizedError, api } from '../api.js';
import { h } from '../dom.js';

/** Under a report: ask a follow-up question, researched on top of this run's sources and findings. */
export function followupBox(runId: string): HTMLElement {
  const question = h('textarea', { id: 'followup-question', rows: 2, required: true, minlength: 3, maxlength: 2000 });
  const submit = h('button', { type: 'submit', id: 'followup-submit' }, 'Ask a follow-up');
  const status = h('p', { class: 'error', role: 'alert', id: 'followup-error' });
  const form = h(
    'form',
    { class: 'card followup', id: 'followup-form', 'aria-labelledby': 'followup-title' },
    h('h2', { id: 'followup-title' }, 'Follow-up question'),
    h('label', { for: 'followup-question' }, 'It starts from this run’s sources and findings and researches only what is new.'),
    question,
    h('div', { class: 'actions' }, submit),
    status,
  );
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    status.textContent = '';
    submit.disabled = true;
    try {
      const { id } = await api.followUp(runId, { question: question.value });
      location.hash = `#/runs/${id}`;
    } catch (err) {
      submit.disabled = false;
      if (!(err instanceof UnauthorizedError)) status.textContent = `Not asked: ${err instanceof ApiError ? err.message : (err as Error).message}`;
    }
  });
  return form;
}
