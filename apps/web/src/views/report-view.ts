import { followupBox } from './followup-box.js';
import type { Citation, Report, ReportFileFormat, ReportSentence } from '@orrery/protocol';
import { ApiError, UnauthorizedError, api } from '../api.js';
import { h } from '../dom.js';
import { count, counted, slug } from '../format.js';
import { httpUrl } from '../safe-url.js';
import { CitationDialog } from './citation-dialog.js';
import type { View } from './view.js';

const COVERAGE_LABEL = { covered: 'covered', thin: 'thin', missing: 'gap' } as const;
/** Each file's button label; the format's name is its extension. */
const FILES: Record<ReportFileFormat, string> = { html: 'HTML', docx: 'Word', pdf: 'PDF' };

/** Saves a blob under a name: a link to its object URL, clicked. */
function save(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob);
  const a = h('a', { href: url, download: name, hidden: true });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/**
 * The report, drawn from its JSON structure with text nodes only: a title, claim or source holding HTML or a
 * `javascript:` link shows as the characters it is. Citations are numbered by source and open the passage.
 */
export function reportView(main: HTMLElement, runId: string): View {
  const dialog = new CitationDialog(runId);
  const status = h('p', { role: 'status', class: 'hint', id: 'report-status' }, 'Loading the report…');
  main.replaceChildren(h('p', { class: 'crumbs' }, h('a', { href: `#/runs/${runId}` }, '← Live view'), ' · ', h('a', { href: '#/' }, 'All runs')), status, dialog.element);
  let disposed = false;

  async function copyMarkdown(out: HTMLElement): Promise<void> {
    try {
      const md = await api.reportMarkdown(runId);
      await navigator.clipboard.writeText(md);
      out.textContent = 'Copied the report as Markdown.';
    } catch (err) {
      if (!(err instanceof UnauthorizedError)) out.textContent = `Could not copy: ${(err as Error).message}`;
    }
  }

  function download(report: Report, out: HTMLElement): void {
    save(new Blob([JSON.stringify(report, null, 2)], { type: 'application/json' }), `orrery-report-${runId}.json`);
    out.textContent = 'Downloaded the report as JSON.';
  }

  // Fetched with the page's key (a plain link would carry none), then saved from memory.
  async function downloadFile(report: Report, format: ReportFileFormat, button: HTMLButtonElement, out: HTMLElement): Promise<void> {
    const label = FILES[format];
    button.disabled = true;
    out.textContent = `Preparing the ${label} file…`;
    try {
      save(await api.reportFile(runId, format), `${slug(report.topic)}.${format}`);
      out.textContent = `Downloaded the report as ${label}.`;
    } catch (err) {
      out.textContent = err instanceof UnauthorizedError ? '' : `Could not download: ${(err as Error).message}`;
    } finally {
      button.disabled = false;
    }
  }

  function draw(report: Report): void {
    const number = new Map(report.sources.map((s, i) => [s.id, i + 1]));
    const byId = new Map(report.sources.map((s) => [s.id, s]));
    const actionStatus = h('span', { role: 'status', class: 'hint', id: 'report-action-status' });
    const copy = h('button', { type: 'button', id: 'copy-markdown' }, 'Copy as Markdown');
    const saveJson = h('button', { type: 'button', id: 'download-json', class: 'secondary' }, 'Download JSON');
    copy.addEventListener('click', () => void copyMarkdown(actionStatus));
    saveJson.addEventListener('click', () => download(report, actionStatus));
    const files = (Object.keys(FILES) as ReportFileFormat[]).map((format) => {
      const button = h('button', { type: 'button', id: `download-${format}`, class: 'secondary', 'aria-label': `Download as ${FILES[format]}` }, FILES[format]);
      button.addEventListener('click', () => void downloadFile(report, format, button, actionStatus));
      return button;
    });
    const m = report.metadata;

    const citeButtons = (citations: readonly Citation[]): HTMLElement[] => {
      const seen = new Set<string>();
      return citations
        .filter((c) => {
          const k = `${c.sourceId}\u0000${c.quote ?? ''}`;
          return seen.has(k) ? false : (seen.add(k), true);
        })
        .map((c) => {
          const n = number.get(c.sourceId) ?? 0;
          const source = byId.get(c.sourceId) ?? { id: c.sourceId, title: c.sourceId };
          const button = h('button', { type: 'button', class: 'cite', 'data-source-id': c.sourceId, 'aria-haspopup': 'dialog', 'aria-label': `Source ${n}: ${source.title}. Open the cited passage` }, `[${n}]`);
          button.addEventListener('click', () => void dialog.open(n, source, c, button));
          return button;
        });
    };
    // A lead's report is cited sentence by sentence: each sentence is followed by its own marks, and a paragraph of
    // table rows is drawn as a table, its cells text nodes, the marks in each row's last cell.
    const prose = (tag: 'p', cls: string | null, text: string, citations: readonly Citation[], sentences?: readonly ReportSentence[]): HTMLElement => {
      if (!sentences) return h(tag, cls ? { class: cls } : null, text, ' ', ...citeButtons(citations));
      const rows = sentences.filter((x) => x.text.trim());
      if (rows.length > 1 && rows.every((x) => /^\s*\|.*\|\s*$/.test(x.text))) {
        const cells = (x: ReportSentence) => x.text.trim().slice(1, -1).split('|').map((c) => c.trim());
        const body = rows.filter((x) => !/^\s*\|?[\s:|-]+\|?\s*$/.test(x.text));
        const [head, ...rest] = body;
        return h(
          'div',
          { class: 'table-wrap' },
          h(
            'table',
            null,
            h('thead', null, h('tr', null, ...cells(head!).map((c) => h('th', { scope: 'col' }, c)))),
            h('tbody', null, ...rest.map((x) => h('tr', null, ...cells(x).map((c, i, all) => h('td', null, c, ...(i === all.length - 1 ? [' ', ...citeButtons(x.citations)] : [])))))),
          ),
        );
      }
      return h(tag, cls ? { class: cls } : null, ...sentences.flatMap((x) => [x.text.replace(/\s+$/, ''), ...(x.citations.length ? [' ', ...citeButtons(x.citations)] : []), ' ']));
    };

    const sections = report.sections.map((s) =>
      h(
        'section',
        { class: 'report-section', ...(s.subtopicId ? { 'data-subtopic-id': s.subtopicId } : {}) },
        h('h2', null, s.title),
        ...s.paragraphs.map((p) => prose('p', null, p.text, p.citations, p.sentences)),
      ),
    );

    const coverage = h(
      'section',
      { class: 'report-coverage', 'aria-labelledby': 'coverage-title' },
      h('h2', { id: 'coverage-title' }, report.headings?.coverage ?? 'Coverage'),
      h(
        'div',
        { class: 'table-wrap' },
        h(
          'table',
          null,
          h('thead', null, h('tr', null, ...['Subtopic', 'Evidence', 'Status'].map((c) => h('th', { scope: 'col' }, c)))),
          h(
            'tbody',
            null,
            ...report.coverage.subtopics.map((s) =>
              h('tr', { 'data-status': s.status }, h('td', null, s.title), h('td', { class: 'num' }, count(s.evidenceCount)), h('td', null, h('span', { class: `chip cov-${s.status}` }, COVERAGE_LABEL[s.status]))),
            ),
          ),
        ),
      ),
      report.coverage.gaps.length ? h('div', null, h('h3', null, report.headings?.gaps ?? 'Gaps that remain'), h('ul', null, ...report.coverage.gaps.map((g) => h('li', null, g)))) : h('p', null, 'No gaps: every subtopic is covered.'),
    );

    const sources = h(
      'section',
      { class: 'report-sources', 'aria-labelledby': 'sources-title' },
      h('h2', { id: 'sources-title' }, report.headings?.sources ?? 'Sources'),
      h(
        'ol',
        null,
        ...report.sources.map((s) => {
          const url = httpUrl(s.url);
          return h(
            'li',
            { id: `source-${number.get(s.id)}` },
            h('span', { class: 'source-title' }, s.title),
            ' ',
            h('code', null, s.id),
            url ? h('span', null, ' ', h('a', { href: url, target: '_blank', rel: 'noopener noreferrer' }, url)) : s.url ? h('span', null, ' ', h('code', null, s.url)) : null,
          );
        }),
      ),
    );

    const article = h(
      'article',
      { class: 'card report', 'aria-labelledby': 'report-title', ...(report.language ? { lang: report.language } : {}) },
      h('h1', { id: 'report-title', tabindex: '-1' }, report.title),
      h('p', { class: 'topic' }, h('span', { class: 'label' }, 'Question: '), report.topic),
      h(
        'p',
        { class: 'meta' },
        [
          m.engine,
          m.corpus && `corpus ${m.corpus}`,
          counted(m.rounds, 'round'),
          counted(m.tasks, 'task'),
          `${counted(report.sources.length, 'source')} cited`,
          m.droppedCitations ? `${counted(m.droppedCitations, 'citation')} dropped (did not check out)` : '',
          `written ${new Date(m.generatedAt).toLocaleString()}`,
        ]
          .filter(Boolean)
          .join(' · '),
      ),
      h('div', { class: 'actions' }, copy, saveJson, h('span', { class: 'downloads', role: 'group', 'aria-label': 'Download the report to hand on' }, h('span', { class: 'hint' }, 'Download as'), ...files), actionStatus),
      report.summarySentences ? prose('p', 'summary', report.summary, report.summaryCitations ?? [], report.summarySentences) : h('p', { class: 'summary' }, report.summary),
      ...sections,
      // A report that says its sources do not answer shows no coverage.
      ...(report.coverage.subtopics.length ? [coverage] : []),
      // A report that cites nothing has no sources list to head.
      ...(report.sources.length ? [sources] : []),
    );
    status.replaceWith(article, followupBox(runId));
    document.title = `Orrery — ${report.title}`;
    article.querySelector<HTMLElement>('#report-title')?.focus();
  }

  api
    .report(runId)
    .then((r) => {
      if (!disposed) draw(r);
    })
    .catch((err: unknown) => {
      if (disposed || err instanceof UnauthorizedError) return;
      status.textContent = err instanceof ApiError && err.status === 409 ? `${err.message}. Follow it in the live view.` : `Could not load the report: ${(err as Error).message}`;
    });

  return {
    dispose: () => {
      disposed = true;
      if (dialog.element.open) dialog.element.close();
    },
  };
}
