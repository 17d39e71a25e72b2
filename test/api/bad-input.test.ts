import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Stack, startStack } from '../support/stack';
import { countKeys } from '../support/test-env';

describe('bad input is refused with a clear 400, and nothing is enqueued or stored', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack('badinput', { workers: 0 });
  });
  afterAll(async () => stack?.stop());

  const post = (body: string) => fetch(`${stack.coordinator.url}/v1/research`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });

  it.each([
    ['malformed JSON', '{"topic": "abc', /JSON|Unexpected|Expected/i],
    ['no topic', '{}', /topic/],
    ['an empty topic', '{"topic": ""}', /topic/],
    ['a 100 kB topic', JSON.stringify({ topic: 'x'.repeat(100_000) }), /topic.*at most/],
    ['wrong types', '{"topic": 42, "budget": {"maxTasks": "many"}}', /topic/],
    ['unknown fields', '{"topic": "Kestrel River", "shell": "rm -rf /"}', /shell/],
    ['an unknown corpus name', '{"topic": "Kestrel River", "corpus": "nosuchcorpus"}', /unknown corpus "nosuchcorpus"/],
    ['a corpus given as a file path', '{"topic": "Kestrel River", "corpus": "/etc/passwd"}', /corpus.*not a path/],
    ['a lone surrogate in the topic', '{"topic": "economy \\ud800 policy"}', /topic.*well-formed Unicode/],
    ['a topic of NUL characters', '{"topic": "\\u0000\\u0000\\u0000\\u0000"}', /topic/],
    ['a topic of zero-width characters', '{"topic": "\\u200b\\u200c\\u200d\\u2060\\ufeff"}', /topic.*letter/],
    ['control and ANSI characters in the topic', '{"topic": "Kestrel \\u001b[31mRiver\\u0007"}', /topic.*control characters/],
  ])('%s', async (_what, body, message) => {
    const before = await countKeys(stack.prefix);
    const res = await post(body);
    expect(res.status).toBe(400);
    const json = (await res.json()) as { message: string };
    expect(json.message).toMatch(message);
    // The problem is named; the service's corpus names are not listed to a stranger.
    expect(json.message).not.toMatch(/known corpora|kestrel/);
    expect(await countKeys(stack.prefix)).toBe(before);
    expect(await stack.queues.coordinator.count()).toBe(0);
  });

  // Each once threw in the schema's credentials check (`new URL`), which the service answered with a 500.
  it.each(['not a url', '', 'http://', 'https://[::1%25lo]/', 'http://a:99999/'])('a malformed webhook URL %j, on research and on follow-ups', async (url) => {
    const before = await countKeys(stack.prefix);
    const followup = `${stack.coordinator.url}/v1/research/00000000-0000-4000-8000-000000000000/followups`;
    for (const res of [await post(JSON.stringify({ topic: 'Kestrel River', webhook: { url } })), await fetch(followup, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ question: 'Kestrel River', webhook: { url } }) })]) {
      expect(res.status, res.url).toBe(400);
      expect(((await res.json()) as { message: string }).message).toBe('webhook.url: webhook.url must be an absolute http(s) URL');
    }
    expect(await countKeys(stack.prefix)).toBe(before);
  });

  it('answers 404 for an unknown run id', async () => {
    for (const id of ['00000000-0000-4000-8000-000000000000', 'not-a-run']) {
      for (const path of ['', '/report', '/events', '/decisions']) {
        const res = await fetch(`${stack.coordinator.url}/v1/research/${id}${path}`);
        expect(res.status, `${id}${path}`).toBe(404);
      }
      expect((await fetch(`${stack.coordinator.url}/v1/research/${id}/cancel`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).status).toBe(404);
    }
  });
});
