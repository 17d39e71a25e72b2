import { type FollowupRequest, type HumanDecision, type Plan, type PlanRevision, PlanRevisionSchema, PlanSchema, type Report, ReportSchema, type ResearchRequest, type RunView, RunViewSchema, type StoredRunEvent, type Watch, type WatchRequest } from '@orrery/protocol';

export class OrreryHttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** A small client of the REST API, used by the CLI, the benchmarks and the tests. */
export class OrreryClient {
  constructor(
    readonly baseUrl: string,
    private readonly apiKey?: string,
  ) {}

  private headers(extra: Record<string, string> = {}): Record<string, string> {
    return { ...(this.apiKey ? { authorization: `Bearer ${this.apiKey}` } : {}), ...extra };
  }

  private async json<T>(path: string, init: RequestInit = {}): Promise<T> {
    const res = await fetch(`${this.baseUrl}${path}`, { ...init, headers: this.headers({ 'content-type': 'application/json', ...(init.headers as Record<string, string>) }) });
    const text = await res.text();
    if (!res.ok) {
      let message = text;
      try {
        message = (JSON.parse(text) as { message?: string }).message ?? text;
      } catch {
        /* not JSON */
      }
      throw new OrreryHttpError(res.status, `${init.method ?? 'GET'} ${path}: ${res.status} ${message}`);
    }
    return JSON.parse(text) as T;
  }

  /** Watches: `every` in seconds or as "1h". */
  watch(request: Omit<WatchRequest, 'every'> & { every: number | string }): Promise<Watch> {
    return this.json('/v1/watches', { method: 'POST', body: JSON.stringify(request) });
  }

  async watches(): Promise<Watch[]> {
    return (await this.json<{ watches: Watch[] }>('/v1/watches')).watches;
  }

  changeWatch(id: string, action: 'pause' | 'resume'): Promise<Watch> {
    return this.json(`/v1/watches/${encodeURIComponent(id)}/${action}`, { method: 'POST', body: '{}' });
  }

  async deleteWatch(id: string): Promise<void> {
    const res = await fetch(`${this.baseUrl}/v1/watches/${encodeURIComponent(id)}`, { method: 'DELETE', headers: this.headers() });
    if (!res.ok) throw new OrreryHttpError(res.status, `DELETE /v1/watches/${id}: ${res.status} ${await res.text()}`);
  }

  async healthy(timeoutMs = 1500): Promise<boolean> {
    try {
      const res = await fetch(`${this.baseUrl}/healthz`, { signal: AbortSignal.timeout(timeoutMs) });
      return res.ok;
    } catch {
      return false;
    }
  }

  submit(request: ResearchRequest): Promise<{ id: string; status: string; links: Record<string, string> }> {
    return this.json('/v1/research', { method: 'POST', body: JSON.stringify(request) });
  }

  /** A follow-up question on a finished run: a new run that starts from its ledger. */
  followUp(parentId: string, request: FollowupRequest): Promise<{ id: string; parentId: string; status: string; links: Record<string, string> }> {
    return this.json(`/v1/research/${encodeURIComponent(parentId)}/followups`, { method: 'POST', body: JSON.stringify(request) });
  }

  async run(id: string): Promise<RunView> {
    return RunViewSchema.parse(await this.json(`/v1/research/${id}`));
  }

  async report(id: string): Promise<Report> {
    return ReportSchema.parse(await this.json(`/v1/research/${id}/report`));
  }

  /** The report in an export format (html, docx, pdf), as its bytes. */
  async reportAs(id: string, format: string): Promise<Buffer> {
    const res = await fetch(`${this.baseUrl}/v1/research/${id}/report?format=${encodeURIComponent(format)}`, { headers: this.headers() });
    if (!res.ok) throw new OrreryHttpError(res.status, `report: ${res.status} ${await res.text()}`);
    return Buffer.from(await res.arrayBuffer());
  }

  async reportMarkdown(id: string): Promise<string> {
    const res = await fetch(`${this.baseUrl}/v1/research/${id}/report?format=markdown`, { headers: this.headers() });
    if (!res.ok) throw new OrreryHttpError(res.status, `report: ${res.status} ${await res.text()}`);
    return res.text();
  }

  /** An answer to a run in needs_review (202). */
  decide(id: string, decision: Exclude<HumanDecision, { action: 'revise' }>): Promise<unknown> {
    return this.json(`/v1/research/${encodeURIComponent(id)}/decision`, { method: 'POST', body: JSON.stringify(decision) });
  }

  /** Feedback in words on a proposed plan: the revised plan, which waits for an answer again. */
  async revisePlan(id: string, feedback: string): Promise<{ proposedPlan: Plan; revision: PlanRevision }> {
    const body = await this.json<{ proposedPlan: unknown; revision: unknown }>(`/v1/research/${encodeURIComponent(id)}/decision`, { method: 'POST', body: JSON.stringify({ action: 'revise', feedback }) });
    return { proposedPlan: PlanSchema.parse(body.proposedPlan), revision: PlanRevisionSchema.parse(body.revision) };
  }

  cancel(id: string): Promise<{ id: string; status: string }> {
    return this.json(`/v1/research/${id}/cancel`, { method: 'POST' });
  }

  /** Follows the run's SSE stream until the server ends it (or `signal` aborts), yielding each event. */
  async *events(id: string, lastEventId?: string, signal?: AbortSignal): AsyncGenerator<StoredRunEvent> {
    const res = await fetch(`${this.baseUrl}/v1/research/${id}/events`, { headers: this.headers(lastEventId ? { 'last-event-id': lastEventId } : {}), ...(signal ? { signal } : {}) });
    if (!res.ok || !res.body) throw new OrreryHttpError(res.status, `events: ${res.status}`);
    const decoder = new TextDecoder();
    let buffer = '';
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      buffer += decoder.decode(chunk, { stream: true });
      let cut: number;
      while ((cut = buffer.indexOf('\n\n')) >= 0) {
        const frame = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        const data = frame
          .split('\n')
          .filter((l) => l.startsWith('data: '))
          .map((l) => l.slice(6))
          .join('\n');
        if (data) yield JSON.parse(data) as StoredRunEvent;
      }
    }
  }

  /** Follows events (after `lastEventId`, if given) until the run ends; returns the final status. */
  async waitForEnd(id: string, onEvent?: (e: StoredRunEvent) => void, signal?: AbortSignal, lastEventId?: string): Promise<string> {
    let status = 'unknown';
    for await (const e of this.events(id, lastEventId, signal)) {
      onEvent?.(e);
      if (e.type === 'run.finished') status = e.status;
    }
    return status;
  }
}
