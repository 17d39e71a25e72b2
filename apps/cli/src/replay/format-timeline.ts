import { counted } from '@orrery/engine';
import type { StoredRunEvent } from '@orrery/protocol';

/** A judge's log lines that read better on their own: what it saw, and the model's reply word for word. */
const OWN_LINE: Record<string, string> = { input: 'saw', modelReply: 'model reply' };

const fmtSignals = (s: Record<string, unknown>) =>
  Object.entries(s)
    .filter(([k]) => !(k in OWN_LINE))
    .map(([k, v]) => `${k}=${Array.isArray(v) ? `[${v.join(',')}]` : String(v)}`)
    .join(' ');

/** A run's timeline from its event stream: rounds, tasks, decisions with their signals, and the outcome. */
export function formatTimeline(events: StoredRunEvent[]): string {
  if (!events.length) return 'no events';
  const t0 = Date.parse(events[0]!.ts);
  const at = (e: StoredRunEvent) => `+${((Date.parse(e.ts) - t0) / 1000).toFixed(2).padStart(7)}s`;
  const lines: string[] = [];
  let rounds = 0;
  const tasks = new Set<string>();
  for (const e of events) {
    switch (e.type) {
      case 'run.created':
        lines.push(`Run ${e.runId}: "${e.topic}" (engine ${e.engine}${e.corpus ? `, corpus ${e.corpus}` : ''})`, '');
        lines.push(`${at(e)}  created`);
        break;
      case 'run.status':
        lines.push(`${at(e)}  status → ${e.status}`);
        break;
      case 'plan.ready':
        lines.push(`${at(e)}  plan: ${e.plan.classification}, ${counted(e.plan.subtopics.length, 'subtopic')}${e.plan.coverage ? `, coverage ${e.plan.coverage.share.toFixed(2)} (threshold ${e.plan.coverage.threshold})` : ''}`);
        for (const s of e.plan.subtopics) lines.push(`             - ${s.id}: ${s.title}`);
        break;
      case 'round.started':
        rounds = Math.max(rounds, e.round);
        for (const t of e.tasks) tasks.add(t.taskId);
        lines.push(`${at(e)}  round ${e.round}: ${counted(e.tasks.length, 'task')}`);
        for (const t of e.tasks) lines.push(`             - ${t.taskId.slice(37)} ${t.kind}: ${t.title}`);
        break;
      case 'task.completed':
        lines.push(`${at(e)}  task ${e.taskId.slice(37)}: ${counted(e.findings, 'finding')}, ${counted(e.newSources, 'new source')}`);
        break;
      case 'task.failed':
        lines.push(`${at(e)}  task ${e.taskId.slice(37)} FAILED: ${e.error.slice(0, 200)}`);
        break;
      case 'round.completed':
        lines.push(`${at(e)}  round ${e.round} done: ${counted(e.newFindings, 'new finding')}, ${counted(e.newSources, 'new source')}, novelty ${e.novelty.toFixed(2)}, coverage ${e.coverage.toFixed(2)}`);
        break;
      case 'decision': {
        const d = e.decision;
        const latency = typeof d.signals['latencyMs'] === 'number' ? `, ${d.signals['latencyMs']} ms` : '';
        lines.push(`${at(e)}  decision ${d.decisionType} [${d.level}, confidence ${d.confidence.toFixed(2)}${latency}${d.stateVersion !== undefined ? `, state v${d.stateVersion}` : ''}]: ${d.conclusion}`);
        for (const [k, label] of Object.entries(OWN_LINE)) if (typeof d.signals[k] === 'string') lines.push(`             ${label}: ${d.signals[k]}`);
        if (Object.keys(d.signals).length) lines.push(`             signals: ${fmtSignals(d.signals)}`);
        break;
      }
      case 'report.ready':
        lines.push(`${at(e)}  report: ${counted(e.sections, 'section')}, ${counted(e.citations, 'citation')}`);
        break;
      case 'run.finished':
        lines.push(`${at(e)}  finished: ${e.status}${e.error ? ` (${e.error})` : ''}`);
        break;
      default:
        break;
    }
  }
  const last = events[events.length - 1]!;
  const finished = events.find((e) => e.type === 'run.finished');
  const decisions = events.filter((e) => e.type === 'decision').length;
  lines.push(
    '',
    `Outcome: ${finished && finished.type === 'run.finished' ? finished.status : 'still running'} after ${counted(rounds, 'round')}, ${counted(tasks.size, 'task')}, ${counted(decisions, 'decision')}, ${((Date.parse(last.ts) - t0) / 1000).toFixed(1)} s`,
  );
  return lines.join('\n');
}
