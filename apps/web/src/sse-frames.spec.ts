import { describe, expect, it } from 'vitest';
import { SseParser } from './sse-frames.js';

describe('SseParser', () => {
  it('splits messages at blank lines and keeps id and event', () => {
    const p = new SseParser();
    expect(p.push('id: 1-0\nevent: run.status\ndata: {"a":1}\n\nid: 1-1\ndata: {"b":2}\n\n')).toEqual([
      { id: '1-0', event: 'run.status', data: '{"a":1}' },
      { id: '1-1', data: '{"b":2}' },
    ]);
  });

  it('joins a message split across chunks anywhere, CRLF included', () => {
    const p = new SseParser();
    const text = 'id: 5-2\r\nevent: decision\r\ndata: {"x":\r\ndata: 1}\r\n\r\n';
    const frames = [...text].flatMap((c) => p.push(c));
    expect(frames).toEqual([{ id: '5-2', event: 'decision', data: '{"x":\n1}' }]);
  });

  it('skips comments (keep-alives) and frames without data', () => {
    const p = new SseParser();
    expect(p.push(': keep-alive\n\nevent: ping\n\n')).toEqual([]);
    expect(p.push('data: ok\n\n')).toEqual([{ data: 'ok' }]);
  });
});
