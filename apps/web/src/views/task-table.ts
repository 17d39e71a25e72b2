import { h } from '../dom.js';
import type { LiveRun } from '../run-state.js';

/** Every task in a table: the picture's content as text, for reading and for screen readers. */
export function taskTable(run: LiveRun): HTMLElement {
  if (!run.tasks.length) return h('p', { class: 'hint' }, 'No task dispatched yet.');
  const title = new Map(run.spokes.map((s) => [s.id, s.title]));
  return h(
    'div',
    { class: 'table-wrap' },
    h(
      'table',
      { id: 'task-table' },
      h('thead', null, h('tr', null, ...['Round', 'Subtopic', 'Task', 'State', 'Findings'].map((c) => h('th', { scope: 'col' }, c)))),
      h(
        'tbody',
        null,
        ...run.tasks.map((t) =>
          h(
            'tr',
            { 'data-task-id': t.taskId, 'data-state': t.state },
            h('td', { class: 'num' }, t.round),
            h('td', null, title.get(t.spokeId) ?? t.spokeId),
            h('td', null, t.title, t.note ? h('span', { class: 'note' }, t.note) : null),
            h('td', null, h('span', { class: `chip state-${t.state}` }, t.state)),
            h('td', { class: 'num' }, t.findings === undefined ? '—' : `${t.findings} (${t.newSources ?? 0} new sources)`),
          ),
        ),
      ),
    ),
  );
}
