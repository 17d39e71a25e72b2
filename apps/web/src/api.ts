import type { CorpusList, FollowupRequest, HumanDecision, Report, ReportFileFormat, ResearchRequest, RunCoverage, RunList, RunStatus, RunView, Source, Watch, WatchRequest } from '@orrery/protocol';
import { sessionKey } from './session-key.js';

/** An API answer other than 2xx, with the server's own message (a 400 names the problem). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** 401: the key is missing or wrong. The page asks for one (see `onUnauthorized`). */
export class UnauthorizedError extends ApiError {}

let unauthorized: (message: string) => void = () => undefined;

/** Called on every 401, so that whichever call meets it first brings up the key prompt. */
export function onUnauthorized(handler: (message: string) => void): void {
  unauthorized = handler;
}

function authHeaders(extra: Record<string, string> = {}): Record<string, string> {
  const key = sessionKey.get();
  return { ...(key ? { authorization: `Bearer ${key}` } : {}), ...extra };
}

async function messageOf(res: Response): Promise<string> {
  const text = await res.text().catch(() => '');
  try {
    const body = JSON.parse(text) as { message?: unknown };
    if (typeof body.message === 'string') return body.message;
    if (Array.isArray(body.message)) return body.message.join('; ');
  } catch {
    /* not JSON */
  }
  return text || res.statusText || `HTTP ${res.status}`;
}

/** Every call of the page goes through here: the key in the Authorization header, and errors as ApiError. */
export async function request(path: string, init: RequestInit & { headers?: Record<string, string> } = {}): Promise<Response> {
  const res = await fetch(path, { ...init, headers: authHeaders(init.headers), cache: 'no-store' });
  if (res.status === 401) {
    const message = await messageOf(res);
    unauthorized(message);
    throw new UnauthorizedError(401, message);
  }
  if (!res.ok) throw new ApiError(res.status, await messageOf(res));
  return res;
}

async function json<T>(path: string, init?: RequestInit & { headers?: Record<string, string> }): Promise<T> {
  return (await request(path, init)).json() as Promise<T>;
}

/** Every POST is JSON, a bodiless one too: the server refuses any other (what a cross-site form could send). */
const post = (body?: unknown) => ({ method: 'POST', headers: { 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });

const run = (id: string) => `/v1/research/${encodeURIComponent(id)}`;
/** A watch as sent: `every` in seconds or as "1h". */
type WatchRequestInput = Omit<WatchRequest, 'every'> & { every: number | string };

export const api = {
  corpora: () => json<CorpusList>('/v1/corpora'),
  runs: (status?: RunStatus) => json<RunList>(`/v1/research?limit=30${status ? `&status=${encodeURIComponent(status)}` : ''}`),
  run: (id: string) => json<RunView>(run(id)),
  coverage: (id: string) => json<RunCoverage>(`${run(id)}/coverage`),
  report: (id: string) => json<Report>(`${run(id)}/report`),
  reportMarkdown: async (id: string) => (await request(`${run(id)}/report?format=markdown`)).text(),
  /** The report as a file to hand on, through the same route (and key) as the rest. */
  reportFile: async (id: string, format: ReportFileFormat) => (await request(`${run(id)}/report?format=${format}`)).blob(),
  source: (id: string, sourceId: string) => json<Source>(`${run(id)}/sources/${encodeURIComponent(sourceId)}`),
  submit: (body: ResearchRequest) => json<{ id: string; status: RunStatus }>('/v1/research', post(body)),
  cancel: (id: string) => json<{ id: string; status: RunStatus }>(`${run(id)}/cancel`, post()),
  followUp: (id: string, body: FollowupRequest) => json<{ id: string; parentId: string; status: RunStatus }>(`${run(id)}/followups`, post(body)),
  watches: () => json<{ watches: Watch[] }>('/v1/watches'),
  watch: (body: WatchRequestInput) => json<Watch>('/v1/watches', post(body)),
  changeWatch: (id: string, action: 'pause' | 'resume') => json<Watch>(`/v1/watches/${encodeURIComponent(id)}/${action}`, post()),
  deleteWatch: async (id: string) => void (await request(`/v1/watches/${encodeURIComponent(id)}`, { method: 'DELETE' })),
  decide: (id: string, body: HumanDecision) => json<{ id: string; status: RunStatus }>(`${run(id)}/decision`, post(body)),
  /** The run's event stream, from after `lastEventId` when given. */
  events: (id: string, lastEventId: string | undefined, signal: AbortSignal) =>
    request(`${run(id)}/events`, { headers: { accept: 'text/event-stream', ...(lastEventId ? { 'last-event-id': lastEventId } : {}) }, signal }),
};
