import type { BudgetRequest, EngineName, ResearchRequest, RunStatus, RunSummary } from '@orrery/protocol';
import { ApiError, UnauthorizedError, api } from '../api.js';
import { h } from '../dom.js';
import { ago, count, dollars, tokens } from '../format.js';
import type { View } from './view.js';

const ENGINES = ['auto', 'corpus', 'anthropic', 'simulated'] as const satisfies readonly EngineName[];
// The page has no zod at run time, so it keeps its own list of the protocol's engines: this fails to compile if they differ.
const allEngines: Exclude<EngineName, (typeof ENGINES)[number]> extends never ? true : never = true;
void allEngines;
const STATUSES = ['queued', 'planning', 'researching', 'synthesizing', 'needs_review', 'done', 'failed', 'cancelled'] as const satisfies readonly RunStatus[];
// Every status is offered in the filter: this fails to compile if the protocol gains one.
const allStatuses: Exclude<RunStatus, (typeof STATUSES)[number]> extends never ? true : never = true;
void allStatuses;

const BUDGET_FIELDS = [
  { key: 'maxTasks', label: 'Max tasks' },
  { key: 'maxRounds', label: 'Max rounds' },
  { key: 'maxTokens', label: 'Max tokens' },
  { key: 'maxWallSeconds', label: 'Max seconds' },
  { key: 'maxCostUsd', label: 'Max dollars' },
] as const satisfies readonly { key: keyof BudgetRequest; label: string }[];

const REFRESH_MS = 3000;

/** The start page: the question form and the recent runs. */
export function askView(main: HTMLElement): View {
  let disposed = false;
  let timer: ReturnType<typeof setTimeout> | undefined;

  const topic = h('textarea', { id: 'topic', rows: 3, required: true, minlength: 3, maxlength: 2000, 'aria-describedby': 'topic-hint' });
  const engine = h('select', { id: 'engine' }, ...ENGINES.map((e) => h('option', { value: e }, e)));
  const corpus = h('select', { id: 'corpus', disabled: true }, h('option', { value: '' }, 'loading…'));
  const budget = BUDGET_FIELDS.map((f) => ({ ...f, input: h('input', { id: `budget-${f.key}`, type: 'number', min: 0, step: f.key === 'maxCostUsd' ? 0.01 : 1, inputmode: 'decimal', placeholder: 'server default' }) }));
  const reviewPlan = h('input', { type: 'checkbox', id: 'review-plan' });
  const webhook = h('input', { id: 'webhook-url', type: 'url', placeholder: 'https://… (optional)', 'aria-describedby': 'webhook-hint' });
  const submit = h('button', { type: 'submit' }, 'Start research');
  const error = h('p', { id: 'ask-error', class: 'error', role: 'alert' });
  const form = h(
    'form',
    { id: 'ask-form', class: 'card ask', 'aria-labelledby': 'ask-title' },
    h('h1', { id: 'ask-title', tabindex: '-1' }, 'Ask a research question'),
    h('label', { for: 'topic' }, 'Question or topic'),
    topic,
    h('p', { id: 'topic-hint', class: 'hint' }, 'Enter starts the research; Shift+Enter adds a line.'),
    h('div', { class: 'row' }, h('div', { class: 'field' }, h('label', { for: 'engine' }, 'Engine'), engine), h('div', { class: 'field' }, h('label', { for: 'corpus' }, 'Corpus'), corpus)),
    h(
      'fieldset',
      { class: 'budget' },
      h('legend', null, 'Budget (optional; it may only lower the server’s limits)'),
      ...budget.map((b) => h('div', { class: 'field' }, h('label', { for: b.input.id }, b.label), b.input)),
    ),
    h('div', { class: 'field' }, h('label', { for: 'webhook-url' }, 'Webhook'), webhook, h('p', { id: 'webhook-hint', class: 'hint' }, 'POSTed, signed, when the run is done, failed or waits for review.')),
    h('label', { class: 'inline', for: 'review-plan' }, reviewPlan, ' Let me review the plan before it runs'),
    h('div', { class: 'actions' }, submit),
    error,
  );

  topic.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      form.requestSubmit();
    }
  });
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    error.textContent = '';
    const limits: BudgetRequest = {};
    for (const b of budget) if (b.input.value) limits[b.key] = Number(b.input.value);
    const body: ResearchRequest = {
      topic: topic.value,
      engine: engine.value as EngineName,
      ...(corpus.value ? { corpus: corpus.value } : {}),
      ...(Object.keys(limits).length ? { budget: limits } : {}),
      ...(reviewPlan.checked ? { review: 'plan' as const } : {}),
      ...(webhook.value.trim() ? { webhook: { url: webhook.value.trim() } } : {}),
    };
    submit.disabled = true;
    try {
      const { id } = await api.submit(body);
      location.hash = `#/runs/${id}`;
    } catch (err) {
      if (!(err instanceof UnauthorizedError)) error.textContent = err instanceof ApiError ? `Not started: ${err.message}` : `Not started: ${(err as Error).message}`;
    } finally {
      submit.disabled = false;
    }
  });

  const filter = h('select', { id: 'status-filter' }, h('option', { value: '' }, 'all'), ...STATUSES.map((s) => h('option', { value: s }, s.replace('_', ' '))));
  const tbody = h('tbody');
  const listStatus = h('p', { class: 'hint', role: 'status' });
  const listBill = h('p', { id: 'runs-bill', class: 'hint' });
  const recent = h(
    'section',
    { class: 'card recent', 'aria-labelledby': 'recent-title' },
    h('div', { class: 'section-head' }, h('h2', { id: 'recent-title' }, 'Recent runs'), h('div', { class: 'field inline' }, h('label', { for: 'status-filter' }, 'Status'), filter)),
    h(
      'div',
      { class: 'table-wrap' },
      h(
        'table',
        { id: 'runs-table' },
        h('thead', null, h('tr', null, ...['Topic', 'Status', 'Started', 'Cost', 'Citations'].map((c) => h('th', { scope: 'col' }, c)))),
        tbody,
      ),
    ),
    listBill,
    listStatus,
  );

  function row(r: RunSummary): HTMLTableRowElement {
    return h(
      'tr',
      { 'data-run-id': r.id, 'data-status': r.status },
      h('td', { class: 'topic-cell' }, h('a', { href: `#/runs/${r.id}` }, r.topic)),
      h('td', null, h('span', { class: `badge status-${r.status}` }, r.status.replace('_', ' '))),
      h('td', null, h('time', { datetime: r.createdAt, title: new Date(r.createdAt).toLocaleString() }, ago(r.createdAt))),
      h('td', { class: 'num', title: `${tokens(r.usage.inputTokens + r.usage.outputTokens)}, ${r.usage.webSearchRequests} web searches` }, dollars(r.usage.costUsd)),
      h('td', { class: 'num' }, r.citations === null ? '—' : count(r.citations)),
    );
  }

  async function loadRuns(): Promise<void> {
    clearTimeout(timer);
    try {
      const { runs, bill } = await api.runs((filter.value || undefined) as RunStatus | undefined);
      if (disposed) return;
      tbody.replaceChildren(...runs.map(row));
      const phases = Object.entries(bill.byPhase).map(([k, v]) => `${k} ${dollars(v?.usd ?? 0)}`).join(', ');
      listBill.textContent = runs.length ? `These ${count(runs.length)} runs cost ${dollars(bill.totalUsd)}${phases ? `: ${phases}` : ''}.` : '';
      listStatus.textContent = runs.length ? '' : filter.value ? `No ${filter.value.replace('_', ' ')} runs.` : 'No runs yet: ask a question above.';
      // While a run is under way its row changes: look again shortly.
      if (runs.some((r) => !['done', 'failed', 'cancelled'].includes(r.status))) timer = setTimeout(loadRuns, REFRESH_MS);
    } catch (err) {
      if (!disposed && !(err instanceof UnauthorizedError)) listStatus.textContent = `Could not list runs: ${(err as Error).message}`;
    }
  }
  filter.addEventListener('change', loadRuns);

  async function loadCorpora(): Promise<void> {
    try {
      const list = await api.corpora();
      if (disposed) return;
      corpus.replaceChildren(...list.corpora.map((c) => h('option', { value: c, selected: c === list.default }, c === list.default ? `${c} (default)` : c)));
      corpus.disabled = false;
    } catch (err) {
      if (!disposed && !(err instanceof UnauthorizedError)) error.textContent = `Could not list corpora: ${(err as Error).message}`;
    }
  }

  main.replaceChildren(form, recent);
  document.title = 'Orrery — ask';
  topic.focus();
  // One call first: without a key it is the one 401 that brings up the prompt (and disposes this view), since
  // every 401 counts against the address's allowance of failed authentications.
  void loadCorpora().then(() => {
    if (!disposed) void loadRuns();
  });
  return {
    dispose: () => {
      disposed = true;
      clearTimeout(timer);
    },
  };
}
