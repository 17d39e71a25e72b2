import type { RunCoverage, RunView, StoredRunEvent } from '@orrery/protocol';
import { ApiError, UnauthorizedError, api } from '../api.js';
import { h } from '../dom.js';
import { type StreamState, followRun } from '../event-stream.js';
import { ago } from '../format.js';
import { TERMINAL, applyEvent, applyRecord, emptyRun } from '../run-state.js';
import { billTable } from './bill-table.js';
import { budgetGauges } from './budget-gauges.js';
import { coverageMap } from './coverage-map.js';
import { DecisionTimeline } from './decision-timeline.js';
import { hubPicture, pictureLegend } from './hub-picture.js';
import { planReviewPanel } from './plan-review-panel.js';
import { reviewPanel } from './review-panel.js';
import { taskTable } from './task-table.js';
import type { View } from './view.js';

const CONNECTION: Record<StreamState, string> = {
  connecting: 'connecting…',
  live: 'live',
  reconnecting: 'connection lost: reconnecting…',
  ended: 'finished',
  failed: 'not following',
};

/** Events after which the run's record or coverage has changed: look them up again. */
const REFRESHING = new Set<StoredRunEvent['type']>(['run.waiting', 'run.resumed', 'run.status', 'plan.ready', 'round.started', 'task.completed', 'round.completed', 'report.ready', 'run.finished']);
const POLL_MS = 5000;
const MIN_REFRESH_GAP_MS = 400;

/** One run, live: the hub and its spokes, coverage, budget, decisions, tasks; review and cancel. */
export function runView(main: HTMLElement, runId: string): View {
  const live = emptyRun(runId);
  let record: RunView | undefined;
  let coverage: RunCoverage | undefined;
  let disposed = false;

  const title = h('h1', { id: 'run-title', tabindex: '-1' }, 'Run');
  const status = h('span', { id: 'run-status', class: 'badge' }, '…');
  const meta = h('span', { class: 'run-meta' });
  const connection = h('span', { id: 'connection', class: 'connection', role: 'status' }, CONNECTION.connecting);
  const cancel = h('button', { type: 'button', id: 'cancel-run', class: 'danger' }, 'Cancel run');
  const reportLink = h('a', { id: 'report-link', class: 'button', href: `#/runs/${runId}/report`, hidden: true }, 'Read the report');
  const error = h('p', { class: 'error', role: 'alert' });
  const waiting = h('p', { id: 'run-waiting', class: 'waiting', role: 'status', hidden: true });
  const reviewSlot = h('div', { id: 'review-slot' });
  const picture = h('div', { class: 'picture-wrap', id: 'hub-picture' });
  const coverageSlot = h('div', { id: 'coverage' });
  const gaugesSlot = h('div', { id: 'budget' });
  const billSlot = h('div', { id: 'bill-slot' });
  const timeline = new DecisionTimeline();
  const judgeOnly = h('input', { type: 'checkbox', id: 'judge-only' });
  const tasksSlot = h('div', { id: 'tasks' });

  judgeOnly.addEventListener('change', () => timeline.showJudgeOnly(judgeOnly.checked));
  cancel.addEventListener('click', async () => {
    cancel.disabled = true;
    error.textContent = '';
    try {
      await api.cancel(runId);
      void refresh();
    } catch (err) {
      cancel.disabled = false;
      if (!(err instanceof UnauthorizedError)) error.textContent = `Not cancelled: ${(err as Error).message}`;
    }
  });

  const card = (id: string, heading: string, ...body: (Node | null)[]) =>
    h('section', { class: `card ${id}`, 'aria-labelledby': `${id}-title` }, h('h2', { id: `${id}-title` }, heading), ...body);

  main.replaceChildren(
    h(
      'section',
      { class: 'run', 'aria-labelledby': 'run-title' },
      h('p', { class: 'crumbs' }, h('a', { href: '#/' }, '← All runs')),
      h('header', { class: 'run-head' }, title, h('p', { class: 'meta' }, status, meta, connection), h('div', { class: 'actions' }, reportLink, cancel), waiting, error),
      reviewSlot,
      h(
        'div',
        { class: 'grid' },
        card('picture', 'Hub and spokes', picture, pictureLegend()),
        card('coverage-card', 'Coverage', coverageSlot),
        card('budget-card', 'Budget', gaugesSlot),
        card('bill-card', 'Bill', billSlot),
        card('decisions', 'Decisions', h('label', { class: 'inline' }, judgeOnly, ' Only the judge’s round verdicts'), timeline.element),
        card('tasks-card', 'Tasks', tasksSlot),
      ),
    ),
  );
  title.focus();

  const phone = matchMedia('(max-width: 760px)');
  const onResize = () => schedule();
  phone.addEventListener('change', onResize);

  let frame = 0;
  function render(): void {
    frame = 0;
    if (disposed) return;
    const topic = live.topic ?? record?.topic ?? 'Run';
    if (title.textContent !== topic) {
      title.textContent = topic;
      document.title = `Orrery — ${topic}`;
    }
    status.textContent = live.status.replace('_', ' ');
    status.className = `badge status-${live.status}`;
    meta.textContent = [live.engine, live.corpus && `corpus ${live.corpus}`, live.classification, live.createdTs && `started ${ago(live.createdTs)}`].filter(Boolean).join(' · ');
    const over = TERMINAL.includes(live.status);
    waiting.hidden = !live.waiting || over;
    waiting.textContent = live.waiting ? `Waiting since ${ago(live.waiting.since)}: ${live.waiting.reason}` : '';
    cancel.hidden = over;
    reportLink.hidden = live.status !== 'done';
    picture.replaceChildren(hubPicture(live, phone.matches));
    coverageSlot.replaceChildren(...coverageMap(live, coverage));
    gaugesSlot.replaceChildren(budgetGauges(record));
    billSlot.replaceChildren(billTable(record?.bill));
    timeline.update(live.decisions, live.createdTs);
    tasksSlot.replaceChildren(taskTable(live));
    // A review answered already (by this page or another) waits for its resume: nothing left to ask.
    const reviewing = live.status === 'needs_review' && record?.status === 'needs_review' && (record.review || record.proposedPlan) && !record.reviewAnswer;
    // A revised plan is drawn again: the revision count says which plan the panel shows.
    const revision = String(record?.planRevisions?.length ?? 0);
    if (reviewing && (!reviewSlot.firstChild || reviewSlot.dataset['revision'] !== revision)) {
      reviewSlot.dataset['revision'] = revision;
      reviewSlot.replaceChildren(record!.proposedPlan ? planReviewPanel(runId, record!.proposedPlan, () => void refresh()) : reviewPanel(record!, () => void refresh()));
      reviewSlot.querySelector<HTMLElement>('#review-title, #plan-review-title')?.focus();
    } else if (!reviewing && reviewSlot.firstChild && live.status !== 'needs_review') {
      reviewSlot.replaceChildren();
    }
  }
  const schedule = () => {
    if (!frame && !disposed) frame = requestAnimationFrame(render);
  };

  // One look-up of the record and coverage at a time; asks made meanwhile fold into one more.
  let inFlight: Promise<void> | undefined;
  let again = false;
  async function refresh(): Promise<void> {
    if (inFlight) {
      again = true;
      return inFlight;
    }
    inFlight = (async () => {
      try {
        const [r, c] = await Promise.all([api.run(runId), api.coverage(runId)]);
        if (disposed) return;
        record = r;
        coverage = c;
        applyRecord(live, r);
        schedule();
      } catch (err) {
        if (!disposed && !(err instanceof UnauthorizedError)) error.textContent = err instanceof ApiError && err.status === 404 ? 'No such run (it may have expired).' : `Could not load the run: ${(err as Error).message}`;
      }
      // Bursts of events fold into one look-up per gap; once the run is over, the last one is not kept waiting.
      if (!TERMINAL.includes(live.status)) await new Promise((r) => setTimeout(r, MIN_REFRESH_GAP_MS));
    })();
    await inFlight;
    inFlight = undefined;
    if (again && !disposed) {
      again = false;
      await refresh();
    }
  }

  const stream = followRun(runId, {
    event: (e) => {
      applyEvent(live, e);
      if (REFRESHING.has(e.type)) void refresh();
      schedule();
    },
    state: (s, detail) => {
      connection.textContent = detail ? `${CONNECTION[s]}: ${detail}` : CONNECTION[s];
      connection.dataset.state = s;
    },
    isOver: async () => TERMINAL.includes((await api.run(runId)).status),
  });

  // The seconds gauge moves on its own; the record is looked up now and then in case an event was missed.
  const tick = setInterval(() => {
    if (record && !TERMINAL.includes(record.status)) gaugesSlot.replaceChildren(budgetGauges(record));
  }, 1000);
  const poll = setInterval(() => {
    if (!TERMINAL.includes(live.status)) void refresh();
  }, POLL_MS);
  void refresh();

  return {
    dispose: () => {
      disposed = true;
      phone.removeEventListener('change', onResize);
      stream.stop();
      clearInterval(tick);
      clearInterval(poll);
      if (frame) cancelAnimationFrame(frame);
    },
  };
}
