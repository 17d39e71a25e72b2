import type { ProgressUpdate } from '@orrery/engine';

/**
 * Holds a task's progress lines for its first `quietMs`: a task that finishes sooner is announced by
 * its result alone, so its lines would be stale on arrival and only cost Redis writes and coordinator
 * work on the result's path. After the quiet period the latest held line goes out, and later lines go
 * straight through. Lines that carry a decision are never held (they belong in the run's decision log).
 */
export class ProgressGate {
  private readonly openAt: number;
  private held: ProgressUpdate | undefined;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    private readonly send: (update: ProgressUpdate) => void,
    private readonly quietMs: number,
    now = performance.now(),
  ) {
    this.openAt = now + quietMs;
  }

  report(update: ProgressUpdate, now = performance.now()): void {
    if (this.closed) return;
    if (update.decision || now >= this.openAt) {
      this.send(update);
      return;
    }
    this.held = update;
    this.timer ??= setTimeout(() => this.release(), this.openAt - now);
  }

  /** The task ended: a line still held is dropped, the result supersedes it. */
  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.held = undefined;
  }

  private release(): void {
    const held = this.held;
    this.held = undefined;
    if (held && !this.closed) this.send(held);
  }
}
