import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import type { CoordinatorConfig } from '../config/coordinator-config';
import { McpSessions } from './mcp-sessions.service';

const bodyOf = async (req: IncomingMessage) => {
  let text = '';
  for await (const chunk of req) text += String(chunk);
  return text ? (JSON.parse(text) as unknown) : undefined;
};

/** McpSessions behind a bare HTTP server, the caller named by `x-who` (the auth middleware's part in the service). */
async function serve(config: Pick<CoordinatorConfig, 'MCP_SESSIONS_PER_KEY' | 'MCP_SESSION_IDLE_SECONDS'>) {
  const sessions = new McpSessions(config as CoordinatorConfig);
  const http: Server = createServer((req, res) => {
    void (async () => {
      const principal = { id: String(req.headers['x-who']), admin: false };
      const authed = Object.assign(req, { auth: { token: '', clientId: principal.id, scopes: [], extra: { principal } } });
      const id = req.headers['mcp-session-id'];
      const body = req.method === 'POST' ? await bodyOf(req) : undefined;
      if (typeof id === 'string') await sessions.serve(id, principal, authed, res, body);
      else await sessions.open(principal, new McpServer({ name: 'test', version: '1' }), authed, res, body);
    })();
  });
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/`;
  const post = (who: string, body: unknown, sessionId?: string) =>
    fetch(url, {
      method: 'POST',
      headers: { 'x-who': who, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18', ...(sessionId ? { 'mcp-session-id': sessionId } : {}) },
      body: JSON.stringify(body),
    });
  const open = async (who: string) => {
    const res = await post(who, { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'spec', version: '1' } } });
    await res.text();
    return res.headers.get('mcp-session-id')!;
  };
  const ping = async (who: string, sessionId: string) => (await post(who, { jsonrpc: '2.0', id: 2, method: 'ping' }, sessionId)).status;
  const stop = async () => {
    await sessions.onApplicationShutdown();
    await new Promise((r) => http.close(r));
  };
  return { sessions, open, ping, stop };
}

describe('McpSessions', () => {
  let stop: (() => Promise<void>) | undefined;
  afterEach(async () => stop?.());

  it('serves a session to the key that opened it only, and closes it when it has been idle too long', async () => {
    const s = await serve({ MCP_SESSIONS_PER_KEY: 4, MCP_SESSION_IDLE_SECONDS: 1 });
    stop = s.stop;
    const id = await s.open('key:a');
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(await s.ping('key:a', id)).toBe(200);
    expect(await s.ping('key:b', id)).toBe(404);
    await new Promise((r) => setTimeout(r, 2500));
    expect(await s.ping('key:a', id)).toBe(404);
  });

  it('closes its sessions on shutdown', async () => {
    const s = await serve({ MCP_SESSIONS_PER_KEY: 4, MCP_SESSION_IDLE_SECONDS: 600 });
    stop = s.stop;
    const ids = [await s.open('key:a'), await s.open('key:b')];
    await s.sessions.onApplicationShutdown();
    for (const id of ids) expect(await s.ping(id === ids[0] ? 'key:a' : 'key:b', id)).toBe(404);
  });

});
