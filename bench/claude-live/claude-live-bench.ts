/**
 * For someone with an Anthropic API key: three questions (a factual one, a comparison, one in French) through the
 * real service against the real Messages API, web only, default settings. Prints each report's first lines, its
 * cost, the share of its input read from the prompt cache, and its wall time. Not part of `npm test`.
 *
 *   ANTHROPIC_API_KEY=sk-... npm run bench:claude-live
 */
import { startBenchStack } from '../support/service-stack';

const QUESTIONS = [
  { kind: 'factual', topic: 'When did the James Webb Space Telescope launch, and from where?' },
  { kind: 'comparison', topic: 'Compare PostgreSQL and MySQL for write-heavy workloads' },
  { kind: 'not in English', topic: "Quelles sont les principales causes de l'inflation en France depuis 2021 ?" },
];
const FIRST_LINES = 8;

async function main(): Promise<void> {
  const key = process.env.ANTHROPIC_API_KEY;
  if (!key) {
    console.error('bench:claude-live needs a real Anthropic API key: set ANTHROPIC_API_KEY (it runs three questions against the real Messages API and is billed).');
    process.exit(2);
  }
  // The service's own settings pass through (ANTHROPIC_MODEL, WEB_FETCH, ...); the engine and the key are set here.
  const passed = Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => /^(ANTHROPIC_|WEB_|FINDINGS_|MAX_)/.test(e[0]) && e[1] !== undefined));
  const stack = await startBenchStack({ name: 'claude-live', workers: 2, env: { ...passed, ENGINE: 'anthropic', ANTHROPIC_API_KEY: key } });
  try {
    for (const q of QUESTIONS) {
      const started = Date.now();
      const { id } = await stack.client.submit({ topic: q.topic });
      const status = await stack.client.waitForEnd(id);
      const seconds = (Date.now() - started) / 1000;
      const run = await stack.client.run(id);
      const u = run.usage;
      const input = u.inputTokens + u.cacheReadTokens + u.cacheWriteTokens;
      console.log(`\n=== ${q.kind}: ${q.topic}`);
      console.log(`status ${status}; cost $${u.costUsd.toFixed(4)}; cache-read share ${input ? ((u.cacheReadTokens / input) * 100).toFixed(1) : '0.0'}% of ${input} input tokens; wall time ${seconds.toFixed(1)} s`);
      if (status === 'done') console.log((await stack.client.reportMarkdown(id)).split('\n').slice(0, FIRST_LINES).join('\n'));
      else console.log(`errors: ${JSON.stringify(run.errors.slice(-3))}`);
    }
  } finally {
    await stack.stop();
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
