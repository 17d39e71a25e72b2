import type { Watch } from '@orrery/protocol';
import { ApiError, UnauthorizedError, api } from '../api.js';
import { h } from '../dom.js';
import type { View } from './view.js';

/** One watch: its question and schedule, its runs (newest first) with what changed, and pause/resume/delete. */
function watchCard(w: Watch, refresh: () => void, say: (text: string) => void): HTMLElement {
  const act = (what: () => Promise<unknown>) => () => void what().then(refresh, (err: unknown) => !(err instanceof UnauthorizedError) && say(err instanceof ApiError ? err.message : String(err)));
  const toggle = h('button', { type: 'button', class: 'secondary' }, w.status === 'active' ? 'Pause' : 'Resume');
  toggle.addEventListener('click', act(() => api.changeWatch(w.id, w.status === 'active' ? 'pause' : 'resume')));
  const remove = h('button', { type: 'button', class: 'secondary' }, 'Delete');
  remove.addEventListener('click', act(() => api.deleteWatch(w.id)));
  const runs = [...w.runs].reverse().map((r) =>
    h(
      'li',
      { class: `watch-run ${r.changed ? 'changed' : ''}` },
      h('a', { href: `#/runs/${r.runId}` }, new Date(r.at).toLocaleString()),
      ` · ${r.status} · `,
      r.changes ? (r.changed ? h('strong', null, 'changed') : 'nothing changed') : 'first answer',
      r.changed && r.changes ? h('div', { class: 'what-changed' }, ...r.changes.summary.split('\n').map((line) => h('p', null, line))) : null,
    ),
  );
  return h(
    'section',
    { class: 'card watch', 'data-watch': w.id },
    h('h2', null, w.question),
    h('p', { class: 'hint' }, `every ${w.everySeconds} s${w.corpus ? ` · corpus ${w.corpus}` : ''} · ${w.status}${w.webhook ? ' · webhook on change' : ''}`),
    h('div', { class: 'actions' }, toggle, remove),
    runs.length ? h('ol', { class: 'watch-runs' }, ...runs) : h('p', { class: 'hint' }, 'No run yet.'),
  );
}

/** `#/watches`: the key's watches, and a form that starts one. */
export function watchesView(main: HTMLElement): View {
  const status = h('p', { role: 'status', class: 'hint', id: 'watch-status' });
  const list = h('div', { id: 'watch-list' });
  const question = h('input', { id: 'watch-question', placeholder: 'A question to ask again' });
  const every = h('input', { id: 'watch-every', value: '1d' });
  const corpus = h('input', { id: 'watch-corpus', placeholder: 'optional' });
  const form = h(
    'form',
    { class: 'card' },
    h('h2', null, 'Keep watch on a question'),
    h('div', { class: 'field' }, h('label', { for: 'watch-question' }, 'Question'), question),
    h('div', { class: 'field' }, h('label', { for: 'watch-every' }, 'Every (e.g. 15m, 1h, 1d)'), every),
    h('div', { class: 'field' }, h('label', { for: 'watch-corpus' }, 'Corpus'), corpus),
    h('div', { class: 'actions' }, h('button', { type: 'submit', id: 'watch-create' }, 'Watch')),
    status,
  );
  const say = (text: string) => (status.textContent = text);
  let disposed = false;
  const refresh = () =>
    void api.watches().then(
      ({ watches }) => !disposed && list.replaceChildren(...(watches.length ? watches.map((w) => watchCard(w, refresh, say)) : [h('p', { class: 'hint' }, 'No watches yet.')])),
      (err: unknown) => !(err instanceof UnauthorizedError) && say(String(err)),
    );
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const body = { question: question.value.trim(), every: /^\d+$/.test(every.value.trim()) ? Number(every.value.trim()) : every.value.trim(), ...(corpus.value.trim() ? { corpus: corpus.value.trim() } : {}) };
    api.watch(body).then(() => {
      say('Watching: the first run starts now.');
      refresh();
    }, (err: unknown) => !(err instanceof UnauthorizedError) && say(`Not created: ${err instanceof ApiError ? err.message : String(err)}`));
  });
  main.replaceChildren(h('h1', null, 'Watches'), form, list);
  refresh();
  const timer = setInterval(refresh, 5000);
  return {
    dispose: () => {
      disposed = true;
      clearInterval(timer);
    },
  };
}
