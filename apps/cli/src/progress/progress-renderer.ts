import { clipText } from '@orrery/protocol';
import type { StoredRunEvent } from '@orrery/protocol';
import ora, { type Ora } from 'ora';
import { forTerminal } from '../terminal/terminal-text';
import { counted } from '@orrery/engine';

/** Live progress of one run: a spinner with persistent lines on a sized TTY, plain log lines elsewhere. */
export class ProgressRenderer {
  private readonly spinner: Ora | undefined;
  private readonly titles = new Map<string, string>();
  private total = 0;
  private readonly finished = new Set<string>();
  private round = 0;
  private status = 'queued';
  private waiting = false;

  constructor(private readonly stream: NodeJS.WriteStream = process.stderr) {
    // A terminal of 0 columns (a pseudo-terminal no one sized) sends ora's line clearing into a loop: log lines there.
    this.spinner = stream.isTTY && (stream.columns ?? 0) > 0 ? ora({ stream, text: 'queued' }).start() : undefined;
  }

  private line(raw: string): void {
    const text = forTerminal(raw);
    if (this.spinner) {
      this.spinner.stopAndPersist({ symbol: '•', text });
      this.spinner.start(this.summary());
    } else {
      this.stream.write(`[orrery] ${text}\n`);
    }
  }

  private summary(): string {
    return `${this.status}${this.waiting ? ' (waiting on the model provider)' : ''}${this.round ? ` · round ${this.round}` : ''} · tasks ${this.finished.size}/${this.total} done`;
  }

  private refresh(): void {
    if (this.spinner) this.spinner.text = this.summary();
  }

  onEvent(e: StoredRunEvent): void {
    switch (e.type) {
      case 'run.created':
        this.line(`run ${e.runId} on ${e.engine}${e.corpus ? ` (corpus ${e.corpus})` : ''}`);
        break;
      case 'run.status':
        this.status = e.status;
        if (e.status === 'needs_review') this.line(`needs review: answer with POST /v1/research/${e.runId}/decision {"action": "continue"|"stop"}`);
        this.refresh();
        break;
      case 'plan.ready':
        this.line(`plan: ${e.plan.classification}, ${counted(e.plan.subtopics.length, 'subtopic')}${e.plan.coverage ? `, coverage ${Math.round(e.plan.coverage.share * 100)}%` : ''}`);
        for (const s of e.plan.subtopics) {
          this.titles.set(s.id, s.title);
          this.line(`  - ${s.title}`);
        }
        break;
      case 'round.started':
        this.round = e.round;
        this.total += e.tasks.length;
        this.line(`round ${e.round}: ${counted(e.tasks.length, 'task')}: ${e.tasks.map((t) => t.title).join('; ')}`);
        break;
      case 'task.progress':
        if (e.stage === 'done' && !e.taskId.endsWith('.write')) {
          this.finished.add(e.taskId);
          this.refresh();
        }
        break;
      case 'task.completed':
        this.finished.add(e.taskId);
        if (!this.spinner) this.line(`task checked (${this.finished.size}/${this.total}): ${counted(e.findings, 'finding')}, ${counted(e.newSources, 'new source')}`);
        this.refresh();
        break;
      case 'task.failed':
        this.finished.add(e.taskId);
        this.line(`task failed: ${clipText(e.error, 200)}`);
        break;
      case 'round.completed':
        this.line(`round ${e.round} done: ${counted(e.newFindings, 'new finding')}, coverage ${Math.round(e.coverage * 100)}%, novelty ${Math.round(e.novelty * 100)}%`);
        break;
      case 'decision':
        if (e.decision.decisionType !== 'plan') this.line(`decision ${e.decision.decisionType} (${e.decision.level}, ${e.decision.confidence.toFixed(2)}): ${e.decision.conclusion}`);
        break;
      case 'run.waiting':
        this.waiting = true;
        this.line(`waiting: ${e.waiting.reason}`);
        this.refresh();
        break;
      case 'run.resumed':
        this.waiting = false;
        this.line(`resumed after waiting ${Math.round(e.waitedMs / 1000)} s on the model provider`);
        this.refresh();
        break;
      case 'report.ready':
        this.line(`report: ${counted(e.sections, 'section')}, ${counted(e.citations, 'citation')}`);
        break;
      case 'run.finished':
        this.status = e.status;
        if (this.spinner) {
          if (e.status === 'done') this.spinner.succeed(`done · ${this.finished.size}/${this.total} tasks`);
          else this.spinner.fail(`${e.status}${e.error ? `: ${e.error}` : ''}`);
        } else {
          this.line(`finished: ${e.status}${e.error ? `: ${e.error}` : ''}`);
        }
        break;
      default:
        break;
    }
  }

  stop(): void {
    this.spinner?.stop();
  }
}
