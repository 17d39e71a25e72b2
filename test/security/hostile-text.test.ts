/**
 * Hostile text: a topic carrying HTML, a javascript: link and a Markdown heading comes back escaped in the
 * Markdown report (checked by rendering it with a permissive Markdown renderer) and as plain data in JSON;
 * control and ANSI characters in a run's events never reach the operator's terminal through `npm run replay`,
 * nor bidi controls through `npm run research -- --json`.
 */
import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import MarkdownIt from 'markdown-it';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Stack, startStack } from '../support/stack';
import { REDIS_URL, redisClient, ROOT } from '../support/test-env';

const HOSTILE = 'Kestrel <script>alert(1)</script> [click here](javascript:alert(1)) <img src=x onerror=alert(2)>\n## Injected heading\n<a href="javascript:alert(3)">win</a> policy';

/** Renders as a permissive viewer would: raw HTML allowed, bare URLs linked, no link scheme refused. */
function renderMarkdown(md: string): string {
  const renderer = new MarkdownIt({ html: true, linkify: true });
  renderer.validateLink = () => true;
  return renderer.render(md);
}

describe('hostile text in reports and terminals', () => {
  let stack: Stack;
  let runId: string;
  beforeAll(async () => {
    stack = await startStack('hostile', { workers: 1 });
    runId = (await stack.client.submit({ topic: HOSTILE, engine: 'simulated' })).id;
    expect(await stack.client.waitForEnd(runId)).toBe('done');
  });
  afterAll(async () => stack?.stop());

  it('the Markdown report has no raw HTML, no javascript: link and no injected heading', async () => {
    const md = await stack.client.reportMarkdown(runId);
    const html = renderMarkdown(md);
    expect(html).not.toMatch(/<script|<img|<a href="javascript:/i);
    expect(html).not.toMatch(/href="javascript:/i);
    expect(html).not.toMatch(/<h2>Injected heading<\/h2>/);
    // Still readable: the words are there as text.
    expect(html).toContain('Injected heading');
    expect(html).toContain('&lt;script&gt;');
  });

  it('the JSON report keeps the topic as data, unchanged', async () => {
    const report = await stack.client.report(runId);
    expect(report.topic).toBe(HOSTILE);
  });

  it('npm run research --json escapes bidi controls (JSON.stringify leaves them raw), and the JSON still reads back the topic unchanged', async () => {
    const topic = 'Kestrel \u202etxt.exe\u202c \u2067flipped\u2069 \u200fmark \u061cpolicy';
    const { stdout } = await promisify(execFile)(process.execPath, [resolve(ROOT, 'apps/cli/dist/research.js'), topic, '--json', '--engine', 'simulated'], {
      env: { ...process.env, ORRERY_URL: stack.coordinator.url },
      maxBuffer: 16 * 1024 * 1024,
    });
    expect(stdout).not.toMatch(/[\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/);
    expect(stdout).toContain('\\u202etxt.exe\\u202c');
    expect((JSON.parse(stdout) as { topic: string }).topic).toBe(topic);
  });

  it('npm run replay strips control and ANSI characters from what it prints', async () => {
    const redis = redisClient();
    // A task's error as a source or a model might phrase it: replay prints it.
    const event = { type: 'task.failed', runId, ts: new Date().toISOString(), round: 1, taskId: `${runId}.r1.t9`, error: 'found \u001b[2J\u001b[31mred\u001b]0;owned\u0007 text\u0000 and \u009b31m more\u202e' };
    await redis.xadd(`${stack.prefix}:run:{${runId}}:events`, '*', 'event', JSON.stringify(event));
    redis.disconnect();
    const { stdout } = await promisify(execFile)(process.execPath, [resolve(ROOT, 'apps/cli/dist/replay.js'), runId], { env: { ...process.env, REDIS_URL, QUEUE_PREFIX: stack.prefix } });
    expect(stdout).toContain('Kestrel');
    expect(stdout).toMatch(/FAILED: found .*red.* text and .*more/);
    expect(stdout).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
  });
});
