/**
 * One key's large requests (an MCP `judge` call of up to about 78 kB) take turns: at most QUOTA_CONCURRENT_LARGE_BODIES per
 * key are read and answered at once, the rest wait with their bodies unread, and past 16 waiting the next gets 429.
 * Another key's large requests are not held behind them. (Parsing and judging a 1 MB call holds the event loop for
 * tens of ms: eight at once from one key delayed another key's reads by half a second; `npm run bench:tenant-latency`.)
 */
import { connect, type Socket } from 'node:net';
import { JUDGE_LIMITS, MCP_BODY_LIMIT_BYTES } from '@orrery/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Stack, startStack } from '../support/stack';
import { newApiKey } from '../support/test-env';

const A = newApiKey();
const B = newApiKey();

/** The largest legal judge call, about 78 kB: over the 64 KiB that makes a body large, each field at its limit. */
const judgeCall = (id: number, pad = 0) =>
  JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: {
      name: 'judge',
      arguments: {
        goal: 'find the failing test '.repeat(200).slice(0, JUDGE_LIMITS.goal),
        step: 4,
        state_summary: 's'.repeat(JUDGE_LIMITS.stateSummary + pad),
        recent_actions: Array.from({ length: JUDGE_LIMITS.actions }, (_, i) => ({ action: `read file ${i} `.padEnd(JUDGE_LIMITS.action, '.'), result: `${i} `.repeat(500).slice(0, JUDGE_LIMITS.result) })),
        history: Array.from({ length: JUDGE_LIMITS.history }, (_, i) => ({ step: i, signal: 'continue' })),
      },
    },
  });

/** A raw POST /mcp whose body is sent up to `sent` bytes (all of it by default); what it answered so far. */
function post(url: string, key: string, body: string, sent = body.length): Promise<{ socket: Socket; answer: () => string; rest: () => void }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => {
      socket.write(
        `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n`,
      );
      socket.write(body.slice(0, sent));
      resolve({ socket, answer: () => answer, rest: () => void socket.write(body.slice(sent)) });
    });
    let answer = '';
    socket.setEncoding('utf8');
    socket.on('data', (d: string) => (answer += d));
    socket.on('error', () => undefined);
    socket.once('error', reject);
  });
}

const until = async (check: () => boolean, ms: number): Promise<boolean> => {
  for (const deadline = Date.now() + ms; Date.now() < deadline; await new Promise((r) => setTimeout(r, 50))) if (check()) return true;
  return check();
};
const verdict = (answer: string) => /^HTTP\/1\.1 200/.test(answer) && answer.includes('\\"signal\\"');

describe('large request bodies per key', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack('large-bodies', { workers: 0, env: { API_KEYS: `${A},${B}`, QUOTA_CONCURRENT_LARGE_BODIES: '1' } });
  });
  afterAll(async () => stack?.stop());

  it("a key's second large call waits, unread, for its first; another key's is answered meanwhile; past 16 waiting: 429", async () => {
    const url = stack.coordinator.url;
    const body = judgeCall(1);
    // A's first call sends half its body and holds the rest: it holds A's one turn.
    const first = await post(url, A, body, 40_000);
    await new Promise((r) => setTimeout(r, 300));
    const second = await post(url, A, judgeCall(2));
    // B's large call is answered while A's wait.
    const other = await post(url, B, judgeCall(3));
    expect(await until(() => verdict(other.answer()), 20_000)).toBe(true);
    expect(second.answer()).toBe('');

    // 16 more of A's wait in line (the second among them); the next is refused at once.
    const waiting = await Promise.all(Array.from({ length: 15 }, (_, i) => post(url, A, judgeCall(10 + i))));
    await new Promise((r) => setTimeout(r, 300));
    const refused = await post(url, A, judgeCall(99));
    expect(await until(() => refused.answer().includes('\r\n\r\n'), 20_000)).toBe(true);
    expect(refused.answer()).toMatch(/^HTTP\/1\.1 429/);
    expect(refused.answer()).toMatch(/retry-after: 1/i);
    expect(refused.answer()).toMatch(/over 64 KiB/);
    expect(second.answer()).toBe('');

    // The first call's body completes: every waiting call is answered in turn.
    first.rest();
    expect(await until(() => [first, second, ...waiting].every((c) => verdict(c.answer())), 60_000)).toBe(true);
    for (const c of [first, second, other, refused, ...waiting]) c.socket.destroy();
  }, 120_000);

  it('a body over /mcp\'s limit is refused with 413 naming the limit, from its length, unread', async () => {
    const body = judgeCall(5, MCP_BODY_LIMIT_BYTES);
    // Only the headers and a first slice are sent: the answer cannot wait for the body.
    const call = await post(stack.coordinator.url, B, body, 1000);
    expect(await until(() => call.answer().includes('\r\n\r\n'), 10_000)).toBe(true);
    expect(call.answer()).toMatch(/^HTTP\/1\.1 413/);
    expect(call.answer()).toContain('larger than 256 KiB, the limit of /mcp');
    call.socket.destroy();
  }, 30_000);
});
