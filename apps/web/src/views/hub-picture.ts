import { h, svg } from '../dom.js';
import { counted } from '../format.js';
import type { LiveRun, TaskState, TaskView } from '../run-state.js';

const HUB_R = 30;
const INNER = 62;
const OUTER = 178;
const LABEL_R = 212;
const NODE_R = 7;

export const TASK_STATES: readonly TaskState[] = ['dispatched', 'running', 'pass', 'partial', 'retry', 'discard', 'failed'];

const shorten = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

/** "Topic: aspect" titles are labelled by their aspect: the topic is in the page's heading already. */
export function spokeLabel(title: string, topic: string | undefined): string {
  const cut = title.indexOf(': ');
  const base = (topic ?? '').replace(/[\s?.!:]+$/, '').toLowerCase();
  if (cut > 0 && base && base.startsWith(title.slice(0, cut).toLowerCase())) return title.slice(cut + 2);
  return title;
}

/** Up to two lines of about `width` characters, broken between words. */
function lines(label: string, width: number): string[] {
  const out: string[] = [];
  let line = '';
  for (const word of label.split(/\s+/)) {
    if (line && `${line} ${word}`.length > width) {
      out.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) out.push(line);
  return out.length > 2 ? [out[0]!, shorten(out.slice(1).join(' '), width)] : out.map((l) => shorten(l, width));
}

/**
 * The hub and its spokes: subtopics as spokes, rounds as rings, each task a dot on its spoke and ring. Each
 * spoke ends in its number (the coverage list uses the same); `compact` (a phone) leaves the text labels out.
 */
export function hubPicture(run: LiveRun, compact: boolean): SVGSVGElement {
  const rounds = Math.max(1, ...run.rounds.map((r) => r.n), ...run.tasks.map((t) => t.round));
  const ringR = (n: number) => (rounds === 1 ? (INNER + OUTER) / 2 : INNER + ((OUTER - INNER) * (n - 1)) / (rounds - 1));
  const n = Math.max(1, run.spokes.length);
  const angle = (i: number) => -Math.PI / 2 + (2 * Math.PI * i) / n;
  const at = (r: number, a: number) => ({ x: +(r * Math.cos(a)).toFixed(1), y: +(r * Math.sin(a)).toFixed(1) });

  const tally = new Map<string, number>();
  for (const t of run.tasks) tally.set(t.state, (tally.get(t.state) ?? 0) + 1);
  const summary =
    `${counted(run.spokes.length, 'subtopic')}, ${counted(run.rounds.length, 'round')}, ${counted(run.tasks.length, 'task')}` +
    (tally.size ? `: ${[...tally].map(([s, k]) => `${k} ${s}`).join(', ')}` : '');

  const rings = Array.from({ length: rounds }, (_, i) => {
    const r = ringR(i + 1);
    // Just right of the top of the ring, clear of the first spoke's dots and number.
    return svg('g', { class: 'ring' }, svg('circle', { r, class: 'ring-line' }), svg('text', { x: 12, y: -r - 3, class: 'ring-label' }, `round ${i + 1}`));
  });

  const spokes = run.spokes.map((s, i) => {
    const a = angle(i);
    const from = at(HUB_R + 4, a);
    const to = at(OUTER + 7, a);
    const label = at(LABEL_R, a);
    const cos = Math.cos(a);
    const anchor = Math.abs(cos) < 0.2 ? 'middle' : cos > 0 ? 'start' : 'end';
    const badge = at(OUTER + 16, a);
    const number = svg('g', { class: 'spoke-number' }, svg('circle', { cx: badge.x, cy: badge.y, r: 9 }), svg('text', { x: badge.x, y: badge.y + 4, 'text-anchor': 'middle' }, i + 1));
    if (compact) return svg('g', { class: 'spoke', 'data-spoke-id': s.id }, svg('line', { x1: from.x, y1: from.y, x2: to.x, y2: to.y }), number, svg('title', null, s.title));
    const text = lines(spokeLabel(s.title, run.topic), 18);
    // Labels above the hub grow upwards, the others downwards, so that none runs into its spoke.
    const y0 = label.y + (Math.sin(a) < -0.2 ? 4 - 13 * (text.length - 1) : 4);
    return svg(
      'g',
      { class: 'spoke', 'data-spoke-id': s.id },
      svg('line', { x1: from.x, y1: from.y, x2: to.x, y2: to.y }),
      number,
      svg(
        'text',
        { x: label.x, y: y0, 'text-anchor': anchor, class: 'spoke-label' },
        svg('title', null, s.title),
        ...text.map((l, k) => svg('tspan', { x: label.x, dy: k ? 13 : 0 }, l)),
      ),
    );
  });

  const bySpoke = new Map(run.spokes.map((s, i) => [s.id, i]));
  const placed = new Map<string, number>();
  const nodes = run.tasks.map((t: TaskView) => {
    const i = bySpoke.get(t.spokeId) ?? 0;
    const slot = `${t.spokeId}|${t.round}`;
    const k = placed.get(slot) ?? 0;
    placed.set(slot, k + 1);
    // Retries of a task in the same round sit beside it on the ring.
    const offset = (k % 2 ? 1 : -1) * Math.ceil(k / 2) * ((NODE_R * 2.4) / ringR(t.round));
    const p = at(ringR(t.round), angle(i) + offset);
    const what = `Round ${t.round}: ${t.title}: ${t.state}${t.findings !== undefined ? `, ${counted(t.findings, 'finding')}` : ''}`;
    return svg('circle', { cx: p.x, cy: p.y, r: NODE_R, class: `task state-${t.state}`, 'data-task-id': t.taskId, 'data-state': t.state, 'data-round': t.round }, svg('title', null, what));
  });

  const hubState = run.finished ? run.finished.status : run.writer === 'running' ? 'writing' : run.status.replace('_', ' ');
  const hub = svg(
    'g',
    { class: `hub ${run.writer === 'running' ? 'writing' : ''}` },
    svg('circle', { r: HUB_R }),
    svg('text', { y: -2, 'text-anchor': 'middle', class: 'hub-label' }, 'hub'),
    svg('text', { y: 12, 'text-anchor': 'middle', class: 'hub-state' }, shorten(hubState, 14)),
  );

  return svg(
    'svg',
    { viewBox: compact ? '-212 -212 424 424' : '-350 -240 700 480', role: 'img', 'aria-labelledby': 'picture-title picture-desc', class: 'hub-picture', 'data-tasks': run.tasks.length, 'data-spokes': run.spokes.length },
    svg('title', { id: 'picture-title' }, 'The hub and its spokes'),
    svg('desc', { id: 'picture-desc' }, summary),
    ...rings,
    ...spokes,
    hub,
    ...nodes,
  );
}

/** The picture's key: what each dot's colour means. */
export function pictureLegend(): HTMLElement {
  return h('ul', { class: 'legend', 'aria-label': 'Task states' }, ...TASK_STATES.map((s) => h('li', null, h('span', { class: `swatch state-${s}`, 'aria-hidden': 'true' }), s)));
}
