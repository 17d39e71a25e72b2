import { type ResourceLimits, Worker } from 'node:worker_threads';

/** What a thread script answers each call with. */
export type ThreadReply = { id: number; ok: true; value: unknown } | { id: number; ok: false; error: string };

export interface OnDemandThreadOptions {
  /** Named in errors. */
  name: string;
  workerData?: unknown;
  /** A bounded heap: without a bound V8 lets a thread's garbage grow to hundreds of MB before collecting it. */
  resourceLimits: ResourceLimits;
  /** With no call pending for this long the thread ends, and the memory its heap held goes back to the system. */
  idleMs: number;
  /** Told when a thread ends (idle, crashed or closed): the next call starts a new one, which holds nothing yet. */
  onEnd?: () => void;
}

/**
 * A worker thread started by the first call and ended once idle, its calls answered in the order sent. An idle
 * thread never keeps a process alive; a pending call does. A thread that fails fails its pending calls, and the next
 * call starts another.
 */
export class OnDemandThread {
  private worker: Worker | null = null;
  private readonly pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  private nextId = 0;
  private closed: Error | null = null;
  private readonly idle: NodeJS.Timeout;

  constructor(
    private readonly script: string,
    private readonly options: OnDemandThreadOptions,
  ) {
    this.idle = setTimeout(() => this.endIdle(), options.idleMs).unref();
  }

  /** Whether a thread runs now (so it still holds what earlier calls gave it). */
  get running(): boolean {
    return this.worker !== null;
  }

  /** Whether a call is in hand (the thread is working, or has work queued). */
  get busy(): boolean {
    return this.pending.size > 0;
  }

  /** The heap bounds of the running thread (null when none runs). */
  get resourceLimits(): ResourceLimits | null {
    return this.worker?.resourceLimits ?? null;
  }

  /** Starts the thread if none runs, so its start-up (loading its modules) overlaps what the caller does before its first call. */
  start(): void {
    if (!this.closed) this.started();
    this.idle.refresh();
  }

  /** Posts `message(id)` to the thread (started if none runs) and resolves with its reply's value. */
  call(message: (id: number) => object): Promise<unknown> {
    if (this.closed) return Promise.reject(this.closed);
    const worker = this.started();
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      worker.ref();
      worker.postMessage(message(id));
    });
  }

  /** Ends the thread for good: later calls fail. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = new Error(`${this.options.name} closed`);
    clearTimeout(this.idle);
    const worker = this.detach(this.closed);
    if (worker) await worker.terminate();
  }

  /** Ends the running thread now unless a call is in hand (the next call starts another): what it holds is freed. */
  endIdle(): void {
    if (!this.worker || this.pending.size > 0) return;
    void this.detach(null)?.terminate();
  }

  /** Forgets the running thread (failing its pending calls with `err`), and returns it. */
  private detach(err: Error | null): Worker | null {
    const worker = this.worker;
    if (!worker) return null;
    this.worker = null;
    worker.removeAllListeners();
    for (const p of this.pending.values()) p.reject(err ?? new Error(`${this.options.name} ended`));
    this.pending.clear();
    this.options.onEnd?.();
    return worker;
  }

  private started(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(this.script, { workerData: this.options.workerData, resourceLimits: this.options.resourceLimits });
    worker.unref();
    worker.on('message', (reply: ThreadReply) => {
      const p = this.pending.get(reply.id);
      if (!p) return;
      this.pending.delete(reply.id);
      if (this.pending.size === 0) {
        worker.unref();
        this.idle.refresh();
      }
      if (reply.ok) p.resolve(reply.value);
      else p.reject(new Error(reply.error));
    });
    const fail = (err: Error): void => {
      if (this.worker === worker) this.detach(err);
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`${this.options.name} thread exited (${code})`)));
    return (this.worker = worker);
  }
}
