import type { Decision } from '@orrery/protocol';
import { h } from '../dom.js';

const signalText = (v: Decision['signals'][string]): string => (Array.isArray(v) ? v.join(', ') : v === null ? '—' : typeof v === 'number' ? String(+v.toFixed(4)) : String(v));

/** Seconds since the run began, "+2.4 s". */
function offset(ts: string, start: string | undefined): string {
  if (!start) return new Date(ts).toLocaleTimeString();
  return `+${((Date.parse(ts) - Date.parse(start)) / 1000).toFixed(1)} s`;
}

/** One decision: when, what, at which level, how sure, its conclusion, and the signals behind it. */
export function decisionItem(d: Decision, start: string | undefined): HTMLLIElement {
  const signals = Object.entries(d.signals);
  return h(
    'li',
    { class: `decision ${d.decisionType === 'judge' ? 'judge' : ''}`, 'data-decision-type': d.decisionType, 'data-level': d.level },
    h(
      'div',
      { class: 'decision-head' },
      h('time', { datetime: d.ts }, offset(d.ts, start)),
      h('strong', { class: 'decision-type' }, d.decisionType),
      h('span', { class: `level level-${d.level}`, title: 'decision level' }, d.level),
      h('span', { class: 'confidence' }, `confidence ${d.confidence.toFixed(2)}`),
      h('meter', { min: 0, max: 1, value: d.confidence, 'aria-label': `confidence ${d.confidence.toFixed(2)}` }),
    ),
    h('p', { class: 'conclusion' }, d.conclusion),
    signals.length
      ? h(
          'details',
          null,
          h('summary', null, `Signals (${signals.length})`),
          h('dl', { class: 'signals' }, ...signals.flatMap(([k, v]) => [h('dt', null, k), h('dd', null, signalText(v))])),
        )
      : null,
  );
}

/**
 * The decisions as a timeline that only grows: items already shown keep their open/closed signals while new
 * ones are appended. `judgeOnly` shows the judge's round verdicts alone.
 */
export class DecisionTimeline {
  readonly element = h('ol', { class: 'timeline', id: 'decision-timeline' });
  private shown = 0;
  private judgeOnly = false;

  update(decisions: Decision[], start: string | undefined): void {
    for (; this.shown < decisions.length; this.shown++) {
      const d = decisions[this.shown]!;
      const item = decisionItem(d, start);
      if (this.judgeOnly && d.decisionType !== 'judge') item.hidden = true;
      this.element.append(item);
    }
    if (!decisions.length) this.element.replaceChildren(h('li', { class: 'hint' }, 'No decisions yet.'));
    else this.element.querySelector('li.hint')?.remove();
  }

  showJudgeOnly(on: boolean): void {
    this.judgeOnly = on;
    for (const li of this.element.querySelectorAll<HTMLLIElement>('li.decision')) li.hidden = on && li.dataset.decisionType !== 'judge';
  }
}
