/** Deterministic job ids: a step or task dispatched twice is one job. BullMQ forbids ':' in ids. */
export const jobIds = {
  plan: (runId: string) => `${runId}.plan`,
  round: (runId: string, round: number) => `${runId}.round.${round}`,
  task: (runId: string, round: number, index: number) => `${runId}.r${round}.t${index}`,
  retry: (runId: string, round: number, retry: number) => `${runId}.round.${round}.retry${retry}`,
  /** A retried task: the original id with its attempt, so each attempt is its own job. */
  retryTask: (taskId: string, attempt: number) => `${taskId.replace(/\.c\d+$/, '')}.c${attempt}`,
  /** One per answer: a run can be reviewed (and answered) more than once in one round. */
  resume: (runId: string, round: number, answerVersion: number) => `${runId}.resume.${round}.v${answerVersion}`,
  finalize: (runId: string, attempt = 0) => (attempt ? `${runId}.finalize.a${attempt}` : `${runId}.finalize`),
  /** The writer's task; a corrected draft is attempt N. */
  write: (runId: string, attempt = 0) => (attempt ? `${runId}.write.a${attempt}` : `${runId}.write`),
};

const RUN_ID_LENGTH = 36;

/** The run a job belongs to, from its id. */
export function runIdOfJob(jobId: string): string | undefined {
  return jobId.length > RUN_ID_LENGTH && jobId[RUN_ID_LENGTH] === '.' ? jobId.slice(0, RUN_ID_LENGTH) : undefined;
}

/** 0 for a first dispatch, N for the N-th retry of a task. */
export function attemptOfTask(taskId: string): number {
  return Number(/\.c(\d+)$/.exec(taskId)?.[1] ?? 0);
}

/** The round a search task belongs to, from its id; 0 for any other job (the writer). */
export function roundOfTask(taskId: string): number {
  return Number(/\.r(\d+)\.t\d+(\.c\d+)?$/.exec(taskId)?.[1] ?? 0);
}
