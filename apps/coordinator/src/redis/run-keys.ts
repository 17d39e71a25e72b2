/**
 * Redis keys of one run. The `{runId}` hash tag keeps a run's keys in one cluster slot,
 * so the Lua scripts that touch several of them stay valid on Redis Cluster.
 */
export class RunKeys {
  constructor(private readonly prefix: string) {}
  run(runId: string): string {
    return `${this.prefix}:run:{${runId}}`;
  }
  events(runId: string): string {
    return `${this.prefix}:run:{${runId}}:events`;
  }
  eventKeys(runId: string): string {
    return `${this.prefix}:run:{${runId}}:event-keys`;
  }
  results(runId: string): string {
    return `${this.prefix}:run:{${runId}}:results`;
  }
  sources(runId: string): string {
    return `${this.prefix}:run:{${runId}}:sources`;
  }
  findings(runId: string): string {
    return `${this.prefix}:run:{${runId}}:findings`;
  }
  /** Finding id → the subtopic id its kept copy is under (the ledger's tie-break). */
  findingSubtopics(runId: string): string {
    return `${this.prefix}:run:{${runId}}:finding-subtopics`;
  }
  /** `<subtopicId> <findingId>` for every accepted finding a subtopic's tasks brought, whichever copy the ledger keeps. */
  findingEvidence(runId: string): string {
    return `${this.prefix}:run:{${runId}}:finding-evidence`;
  }
  /** Task id → the researcher's condensed report, for the lead who writes. */
  taskReports(runId: string): string {
    return `${this.prefix}:run:{${runId}}:task-reports`;
  }
  report(runId: string): string {
    return `${this.prefix}:run:{${runId}}:report`;
  }
  /** The delivery log of the run's webhooks. */
  webhooks(runId: string): string {
    return `${this.prefix}:run:{${runId}}:webhooks`;
  }
  all(runId: string): string[] {
    return [this.webhooks(runId), this.run(runId), this.events(runId), this.eventKeys(runId), this.results(runId), this.sources(runId), this.findings(runId), this.findingSubtopics(runId), this.findingEvidence(runId), this.taskReports(runId), this.report(runId)];
  }
}
