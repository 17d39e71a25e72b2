import type { RunCoverage } from '@orrery/protocol';
import { h } from '../dom.js';
import { counted, percent } from '../format.js';
import type { LiveRun } from '../run-state.js';

const LABEL = { covered: 'covered', thin: 'thin', missing: 'gap' } as const;

/** Covered / thin / gap per subtopic, from the ledger's evidence so far; the plan's subtopics before any evidence. */
export function coverageMap(run: LiveRun, coverage: RunCoverage | undefined): HTMLElement[] {
  const rows = coverage?.subtopics.length ? coverage.subtopics : run.spokes.map((s) => ({ id: s.id, title: s.title, evidenceCount: 0, status: 'missing' as const }));
  const share = coverage?.share;
  // The spoke's number in the picture.
  const number = (id: string) => {
    const i = run.spokes.findIndex((x) => x.id === id);
    return i < 0 ? '' : String(i + 1);
  };
  const head = h(
    'p',
    { class: 'coverage-share' },
    share === null || share === undefined
      ? `Target ${percent(coverage?.target ?? 0.8)} of subtopics covered; measured when round 1 ends.`
      : `${percent(share)} of subtopics covered after round ${run.rounds.filter((r) => r.completed).at(-1)?.n ?? 1} (target ${percent(coverage!.target)}).`,
  );
  if (!rows.length) return [head, h('p', { class: 'hint' }, 'The plan is not ready yet.')];
  return [
    head,
    h(
      'ul',
      { class: 'coverage-map' },
      ...rows.map((s) =>
        h(
          'li',
          { 'data-subtopic-id': s.id, 'data-status': s.status },
          h('span', { class: 'coverage-title' }, number(s.id) ? h('span', { class: 'spoke-no', 'aria-hidden': 'true' }, number(s.id)) : null, s.title),
          h('span', { class: `chip cov-${s.status}` }, LABEL[s.status]),
          h('span', { class: 'coverage-count' }, counted(s.evidenceCount, 'finding')),
        ),
      ),
    ),
  ];
}
