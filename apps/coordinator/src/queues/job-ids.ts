/** Deterministic job ids: a step or task dispatched twice is one job. BullMQ forbids ':' in ids. */
export const jobIds = {
  plan: (runId: string) => `${runId}.plan`,
  round: (runId: string, round: number) => `${runId}.round.${round}`,
  task: (runId: string, round: number, index: number) => `${runId}.r${round}.t${index}`,
  finalize: (runId: string) => `${runId}.finalize`,
  write: (runId: string) => `${runId}.write`,
};

const RUN_ID_LENGTH = 36;

/** The run a job belongs to, from its id. */
export function runIdOfJob(jobId: string): string | undefined {
  return jobId.length > RUN_ID_LENGTH && jobId[RUN_ID_LENGTH] === '.' ? jobId.slice(0, RUN_ID_LENGTH) : undefined;
}
