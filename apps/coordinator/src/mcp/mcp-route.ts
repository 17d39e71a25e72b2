import { type INestApplication, Logger } from '@nestjs/common';
import { hostHeaderValidation, originValidation, toNodeHandler } from '@modelcontextprotocol/node';
import { isInitializeRequest } from '@modelcontextprotocol/server';
import type { NextFunction, Request, Response } from 'express';
import { principalOf } from '../auth/request-principal';
import { McpSessions } from './mcp-sessions.service';
import { OrreryMcpServers } from './orrery-mcp-servers.service';

export const MCP_PATH = '/mcp';
const LOOPBACK = ['localhost', '127.0.0.1', '[::1]'];
const isLoopback = (host: string) => ['127.0.0.1', 'localhost', '::1'].includes(host);
/** An `initialize` from a client that can show a form (elicitation's form mode, which a bare `{}` means). */
const asksForms = (body: unknown): boolean => {
  if (!isInitializeRequest(body)) return false;
  const elicitation = body.params.capabilities.elicitation as Record<string, unknown> | undefined;
  return elicitation !== undefined && (elicitation.form !== undefined || Object.keys(elicitation).length === 0);
};

/**
 * Streamable HTTP at /mcp. A 2025-era client that can show a form gets a session at `initialize` (McpSessions), which
 * its later requests name in `mcp-session-id`, so a call can ask its person about a plan. Every other POST is answered
 * statelessly by a fresh server, which any replica can do. Either way the server is bound to the caller the auth
 * middleware resolved, so it passes the same keys, ownership and quotas as REST.
 * Bound to loopback, Host and Origin must name loopback (or ALLOWED_HOSTS): DNS-rebinding protection.
 */
export function mountMcp(app: INestApplication, opts: { boundHost: string; allowedHosts: readonly string[] }): void {
  const logger = new Logger('MCP');
  const servers = app.get(OrreryMcpServers);
  const sessions = app.get(McpSessions);
  const serve = toNodeHandler(servers.httpHandler(), { onerror: (err) => logger.warn(err.message) });
  const allowed = [...LOOPBACK, ...opts.allowedHosts];
  const guards = isLoopback(opts.boundHost) ? [hostHeaderValidation(allowed), originValidation(allowed)] : [];
  app.use(MCP_PATH, (req: Request, res: Response, next: NextFunction) => {
    if (req.path !== '/' && req.path !== '') return next();
    for (const guard of guards) if (!guard(req, res)) return;
    const sessionId = req.headers['mcp-session-id'];
    // Only POST carries a message; a session also takes GET (its stream) and DELETE (its end). Answered here for every
    // other method, because a method fetch's Request refuses to hold (TRACE, TRACK) would otherwise throw inside the SDK.
    const methods = typeof sessionId === 'string' ? ['POST', 'GET', 'DELETE'] : ['POST'];
    if (!methods.includes(req.method)) {
      res.status(405).set('Allow', methods.join(', ')).json({ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed.' }, id: null });
      return;
    }
    const principal = principalOf(req);
    const authed = Object.assign(req, { auth: { token: '', clientId: principal.id, scopes: [], extra: { principal } } });
    if (typeof sessionId === 'string') return void sessions.serve(sessionId, principal, authed, res, req.body).catch(next);
    if (asksForms(req.body)) return void sessions.open(principal, servers.create(principal, { session: true }), authed, res, req.body).catch(next);
    serve(authed, res, req.body).catch(next);
  });
}
