import { AsyncLocalStorage } from 'node:async_hooks';
import { activeTraceId } from './tracing';

/** What a log line is about: set around a step or a task, read by every line logged inside it. */
export interface LogContext {
  runId?: string;
  jobId?: string;
  taskId?: string;
}

const storage = new AsyncLocalStorage<LogContext>();

export function withLogContext<T>(ctx: LogContext, fn: () => T): T {
  return storage.run({ ...storage.getStore(), ...ctx }, fn);
}

/** The fields pino adds to each line: run, job and task ids, and the trace id when tracing is on. */
export function logFields(): Record<string, string> {
  const ctx = storage.getStore();
  const traceId = activeTraceId();
  return {
    ...(ctx?.runId ? { run_id: ctx.runId } : {}),
    ...(ctx?.jobId ? { job_id: ctx.jobId } : {}),
    ...(ctx?.taskId ? { task_id: ctx.taskId } : {}),
    ...(traceId ? { trace_id: traceId } : {}),
  };
}
