/**
 * What an unauthenticated client can make the server do with a body: nothing. A body sent to a route that takes
 * none (the open routes included) is refused from its headers, unread; bodies are parsed only on the routes
 * that take one, after authentication; bytes that are not UTF-8 and nesting deeper than 32 levels are refused
 * before parsing. Slow
 * senders get 408 once the header or request timeout is over.
 */
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Stack, startStack } from '../support/stack';
import { newApiKey } from '../support/test-env';

const KEY = newApiKey();

/** A raw HTTP/1.1 exchange: the socket, what it answered so far, and when it closed (ms after opening). */
function open(url: string): Promise<{ socket: Socket; answer: () => string; closed: Promise<number> }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const t0 = Date.now();
    const socket = connect(Number(port), hostname, () => resolve({ socket, answer: () => answer, closed }));
    let answer = '';
    socket.setEncoding('utf8');
    socket.on('data', (d: string) => (answer += d));
    socket.on('error', () => undefined);
    const closed = new Promise<number>((r) => socket.on('close', () => r(Date.now() - t0)));
    socket.once('error', reject);
  });
}

const until = async (check: () => boolean, ms: number): Promise<boolean> => {
  for (const deadline = Date.now() + ms; Date.now() < deadline; await new Promise((r) => setTimeout(r, 50))) if (check()) return true;
  return check();
};

describe('request bodies and slow clients', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack('bodies', { workers: 0, env: { API_KEYS: KEY, HTTP_HEADERS_TIMEOUT_MS: '1500', HTTP_REQUEST_TIMEOUT_MS: '3000' } });
  });
  afterAll(async () => stack?.stop());

  it('refuses a body on an open route from its headers: 413 before the body is sent, and the connection closes', async () => {
    for (const path of ['/', '/healthz', '/readyz', '/assets/app.js']) {
      const c = await open(stack.coordinator.url);
      // A megabyte announced, ten bytes sent: an answer now means the rest was never waited for.
      c.socket.write(`POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${1 << 20}\r\n\r\n[[[[[[[[[[`);
      expect(await until(() => / 413 /.test(c.answer()), 5000), `${path}: ${c.answer().slice(0, 80)}`).toBe(true);
      expect(c.answer()).toMatch(/takes no request body/);
      expect(await Promise.race([c.closed, new Promise((r) => setTimeout(() => r('open'), 5000))]), path).not.toBe('open');
    }
  });

  it('refuses a body on an authenticated route that takes none', async () => {
    const res = await fetch(`${stack.coordinator.url}/v1/research/00000000-0000-4000-8000-000000000000`, { method: 'DELETE', headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' }, body: '{}' });
    expect(res.status).toBe(413);
  });

  it('answers a body without a key with 401, unread', async () => {
    const c = await open(stack.coordinator.url);
    c.socket.write(`POST /v1/research HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${1 << 20}\r\n\r\n[[[[`);
    expect(await until(() => / 401 /.test(c.answer()), 5000), c.answer().slice(0, 80)).toBe(true);
    c.socket.destroy();
  });

  it('refuses nesting deeper than 32 levels with a clear 400, and takes an ordinary request', async () => {
    const post = (body: string) => fetch(`${stack.coordinator.url}/v1/research`, { method: 'POST', headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' }, body });
    const bomb = await post(`${'['.repeat(500_000)}${']'.repeat(500_000)}`);
    expect(bomb.status).toBe(400);
    expect(((await bomb.json()) as { message: string }).message).toMatch(/deeper than 32 levels/);
    const nestedTopic = await post(JSON.stringify({ topic: 'Kestrel River nesting probe', engine: 'simulated', extra: JSON.parse(`${'{"a":'.repeat(40)}1${'}'.repeat(40)}`) }));
    expect(nestedTopic.status).toBe(400);
    const bad = await post('{"topic": ');
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { message: string }).message).toMatch(/not valid JSON/);
    expect((await post(JSON.stringify({ topic: 'Kestrel River [brackets] {inside} the topic', engine: 'simulated' }))).status).toBe(202);
  });

  it('refuses a body that is not valid UTF-8 with a clear 400, over REST and MCP, rather than read U+FFFD into a topic', async () => {
    const post = (path: string, body: Uint8Array, contentType = 'application/json') =>
      fetch(`${stack.coordinator.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${KEY}`, 'content-type': contentType, accept: 'application/json, text/event-stream' }, body });
    const withBytes = (before: string, bytes: number[], after: string) => Buffer.concat([Buffer.from(before), Buffer.from(bytes), Buffer.from(after)]);
    const before = (await (await fetch(`${stack.coordinator.url}/v1/research`, { headers: { authorization: `Bearer ${KEY}` } })).json()) as { runs: unknown[] };
    // A stray byte, a truncated sequence, an overlong '/', a UTF-16 surrogate written as UTF-8.
    for (const bytes of [[0xff], [0xe6, 0xb2], [0xc0, 0xaf], [0xed, 0xa0, 0x80]]) {
      for (const contentType of ['application/json', 'application/json; charset=utf-8']) {
        const res = await post('/v1/research', withBytes('{"topic": "Kestrel River ', bytes, ' dams", "engine": "simulated"}'), contentType);
        expect(res.status, `${bytes} ${contentType}`).toBe(400);
        expect(((await res.json()) as { message: string }).message).toBe('the body is not valid UTF-8');
      }
      const rpc = withBytes('{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "research", "arguments": {"topic": "Kestrel ', bytes, '"}}}');
      const mcp = await post('/mcp', rpc);
      expect(mcp.status).toBe(400);
      expect(((await mcp.json()) as { message: string }).message).toBe('the body is not valid UTF-8');
    }
    const after = (await (await fetch(`${stack.coordinator.url}/v1/research`, { headers: { authorization: `Bearer ${KEY}` } })).json()) as { runs: unknown[] };
    expect(after.runs.length).toBe(before.runs.length);
    // Well-formed UTF-8 beyond ASCII is taken as sent.
    const ok = await post('/v1/research', Buffer.from(JSON.stringify({ topic: 'Kestrel Ríver 河 dams', engine: 'simulated' })));
    expect(ok.status).toBe(202);
    const { id } = (await ok.json()) as { id: string };
    expect(((await (await fetch(`${stack.coordinator.url}/v1/research/${id}`, { headers: { authorization: `Bearer ${KEY}` } })).json()) as { topic: string }).topic).toBe('Kestrel Ríver 河 dams');
  });

  it('closes a client that sends its headers too slowly, and one that sends its body too slowly, with 408', { timeout: 30_000 }, async () => {
    const headers = await open(stack.coordinator.url);
    headers.socket.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n');
    const dripHeaders = setInterval(() => headers.socket.writable && headers.socket.write('X-Slow: 1\r\n'), 200);
    const body = await open(stack.coordinator.url);
    body.socket.write(`POST /v1/research HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${KEY}\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{`);
    const dripBody = setInterval(() => body.socket.writable && body.socket.write(' '), 200);
    try {
      const timeout = new Promise<number>((r) => setTimeout(() => r(Infinity), 15_000));
      expect(await Promise.race([headers.closed, timeout])).toBeLessThan(6000);
      expect(headers.answer()).toMatch(/^HTTP\/1\.1 408/);
      expect(await Promise.race([body.closed, timeout])).toBeLessThan(8000);
      expect(body.answer()).toMatch(/^HTTP\/1\.1 408/);
    } finally {
      clearInterval(dripHeaders);
      clearInterval(dripBody);
      headers.socket.destroy();
      body.socket.destroy();
    }
  });
});
