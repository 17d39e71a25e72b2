import { type INestApplication, Logger } from '@nestjs/common';
import { hostHeaderValidation, originValidation, toNodeHandler } from '@modelcontextprotocol/node';
import type { NextFunction, Request, Response } from 'express';
import { principalOf } from '../auth/request-principal';
import { OrreryMcpServers } from './orrery-mcp-servers.service';

export const MCP_PATH = '/mcp';
const LOOPBACK = ['localhost', '127.0.0.1', '[::1]'];
const isLoopback = (host: string) => ['127.0.0.1', 'localhost', '::1'].includes(host);

/**
 * Streamable HTTP at /mcp, stateless: every POST is answered by a fresh server bound to the caller the auth
 * middleware resolved, so it passes the same keys, ownership and quotas as REST and any replica can answer it.
 * Bound to loopback, Host and Origin must name loopback (or ALLOWED_HOSTS): DNS-rebinding protection.
 */
export function mountMcp(app: INestApplication, opts: { boundHost: string; allowedHosts: readonly string[] }): void {
  const logger = new Logger('MCP');
  const serve = toNodeHandler(app.get(OrreryMcpServers).httpHandler(), { onerror: (err) => logger.warn(err.message) });
  const allowed = [...LOOPBACK, ...opts.allowedHosts];
  const guards = isLoopback(opts.boundHost) ? [hostHeaderValidation(allowed), originValidation(allowed)] : [];
  app.use(MCP_PATH, (req: Request, res: Response, next: NextFunction) => {
    if (req.path !== '/' && req.path !== '') return next();
    for (const guard of guards) if (!guard(req, res)) return;
    // Stateless: only POST carries a message. Answered here for every other method, as the SDK answers GET and
    // DELETE, because a method fetch's Request refuses to hold (TRACE, TRACK) would otherwise throw inside it.
    if (req.method !== 'POST') {
      res.status(405).set('Allow', 'POST').json({ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed.' }, id: null });
      return;
    }
    const principal = principalOf(req);
    const authed = Object.assign(req, { auth: { token: '', clientId: principal.id, scopes: [], extra: { principal } } });
    serve(authed, res, req.body).catch(next);
  });
}
