import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { NodeStreamableHTTPServerTransport } from '@modelcontextprotocol/node';
import type { AuthInfo, JSONRPCMessage, McpServer } from '@modelcontextprotocol/server';
import type { Principal } from '../auth/principal';
import { COORDINATOR_CONFIG, type CoordinatorConfig } from '../config/coordinator-config';

type McpRequest = IncomingMessage & { auth: AuthInfo };

interface McpSession {
  readonly ownerId: string;
  readonly server: McpServer;
  readonly transport: NodeStreamableHTTPServerTransport;
  lastUsed: number;
  /** POSTs being answered: a session answering one is neither idle nor evicted. */
  busy: number;
}

const rpcError = (res: ServerResponse, status: number, message: string) =>
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32001, message }, id: null }));

/**
 * The 2025-era Streamable HTTP sessions on /mcp: a client the route opens one for keeps its server and transport, keyed
 * by `mcp-session-id`, so the server can ask it something mid-call (elicitation) and hear the answer. A session belongs
 * to the key that opened it; bounded per key, closed when idle and on shutdown. In this process's memory only.
 */
@Injectable()
export class McpSessions implements OnApplicationShutdown {
  private readonly sessions = new Map<string, McpSession>();
  private readonly logger = new Logger('MCP');
  private readonly sweeper: NodeJS.Timeout;
  constructor(@Inject(COORDINATOR_CONFIG) private readonly config: CoordinatorConfig) {
    const idleMs = config.MCP_SESSION_IDLE_SECONDS * 1000;
    this.sweeper = setInterval(() => this.sweep(idleMs), Math.min(idleMs, 60_000)).unref();
  }

  /** Answers an `initialize` with a new session of its own server; past the key's bound, its least recently used idle session goes. */
  async open(principal: Principal, server: McpServer, req: McpRequest, res: ServerResponse, body: unknown): Promise<void> {
    const owned = [...this.sessions.entries()].filter(([, s]) => s.ownerId === principal.id);
    if (owned.length >= this.config.MCP_SESSIONS_PER_KEY) {
      const idle = owned.filter(([, s]) => s.busy === 0).sort(([, a], [, b]) => a.lastUsed - b.lastUsed)[0];
      if (!idle) {
        await server.close();
        res.setHeader('retry-after', '5');
        return void rpcError(res, 429, `this key has ${owned.length} MCP sessions answering calls; end one (DELETE /mcp) first`);
      }
      await this.drop(idle[0]);
    }
    const session: McpSession = {
      ownerId: principal.id,
      server,
      lastUsed: Date.now(),
      busy: 0,
      transport: new NodeStreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => void this.sessions.set(id, session),
        onsessionclosed: (id) => this.drop(id),
      }),
    };
    session.transport.onclose = () => void (session.transport.sessionId && this.drop(session.transport.sessionId));
    session.transport.onerror = (err) => this.logger.warn(err.message);
    await server.connect(session.transport);
    await this.handle(session, req, res, body);
    // A refused initialize opened nothing.
    if (!session.transport.sessionId) await server.close();
  }

  /**
   * Passes a request to its session. Another key's request gets the same 404 as an unknown id: it learns nothing
   * about the session, and a client told 404 starts a session of its own (the spec's rule).
   */
  async serve(sessionId: string, principal: Principal, req: McpRequest, res: ServerResponse, body: unknown): Promise<void> {
    const session = this.sessions.get(sessionId);
    if (!session || session.ownerId !== principal.id) return void rpcError(res, 404, 'Session not found');
    await this.handle(session, req, res, body);
  }

  private async handle(session: McpSession, req: McpRequest, res: ServerResponse, body: unknown): Promise<void> {
    session.lastUsed = Date.now();
    if (req.method === 'POST') {
      session.busy++;
      res.once('close', () => {
        session.busy--;
        session.lastUsed = Date.now();
        // A call whose response stream closed before its answer: the client went away. Cancelled as on the stateless
        // endpoint, where the request's own abort does it (a session without an event store cannot resume it).
        if (!res.writableFinished) this.cancel(session, body);
      });
    }
    await session.transport.handleRequest(req, res, body);
  }

  private cancel(session: McpSession, body: unknown): void {
    const msg = body as Partial<{ id: string | number; method: string }> | undefined;
    if (msg?.id === undefined || typeof msg.method !== 'string') return;
    const cancelled: JSONRPCMessage = { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: msg.id, reason: 'the client went away' } };
    session.transport.onmessage?.(cancelled);
  }

  private async drop(id: string): Promise<void> {
    const session = this.sessions.get(id);
    if (!session) return;
    this.sessions.delete(id);
    await session.server.close().catch((err: Error) => this.logger.warn(err.message));
  }

  private sweep(idleMs: number): void {
    const now = Date.now();
    for (const [id, s] of this.sessions) if (s.busy === 0 && now - s.lastUsed > idleMs) void this.drop(id);
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.sweeper);
    await Promise.all([...this.sessions.keys()].map((id) => this.drop(id)));
  }
}
