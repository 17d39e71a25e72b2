/**
 * `npm run bench:tenant-latency -- [--seconds 15] [--seed 7] [--only idle,judge,judge-1mb,topics]`: how much one tenant's load
 * slows another tenant's reads. A real coordinator and worker (corpus engine, the built-in speeches), two tenant keys.
 * Tenant B polls `GET /v1/research/:id` for a run of its own, one request at a time (in a thread of its own), while
 * tenant A (with the request quota raised out of the way: what is measured is the event loop):
 *  - idle: sends nothing (the baseline);
 *  - judge: makes 8 concurrent MCP `judge` calls, each the largest /mcp accepts (about 80 kB), back to back;
 *  - judge-1mb: makes 8 concurrent MCP `judge` calls of about 1 MB each, back to back (each refused with 413);
 *  - topics: starts 5 runs whose topics are 1,990 characters of words rare in the corpus (each a new topic).
 * Prints B's median and p95 per phase, and each as a ratio of the idle phase.
 */
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { Worker } from 'node:worker_threads';
import { eachSotuPassage } from '@orrery/passages/ingest';
import { JUDGE_LIMITS } from '@orrery/protocol';
import { readFlags } from '../support/flags';
import { prng } from '../support/prng';
import { median, percentile, startBenchStack } from '../support/service-stack';

const USAGE = 'Usage: npm run bench:tenant-latency -- [--seconds 15] [--seed 7] [--only idle,judge,judge-1mb,topics]';
const flags = readFlags(process.argv.slice(2), { values: ['--seconds', '--seed', '--only'] }, USAGE);
const SECONDS = flags.int('--seconds') ?? 15;
const SEED = flags.int('--seed') ?? 7;
const PHASES = (flags.value('--only') ?? 'idle,judge,judge-1mb,topics').split(',');
const JUDGE_THREADS = 8;
/** Requests per key and minute: far above both tenants' rates, so that the event loop, not the quota, limits them. */
const REQUESTS_PER_MINUTE = 100_000;
const LONG_TOPICS = 5;
const TOPIC_CHARS = 1990;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const auth = (key: string) => ({ authorization: `Bearer ${key}`, 'content-type': 'application/json' });

const words = (n: number, rand: () => number) => Array.from({ length: n }, () => Math.floor(rand() * 36 ** 5).toString(36)).join(' ');
const judgeBody = (id: number, args: object) => JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'judge', arguments: args } });

/** The largest judge call /mcp accepts: every field at its limit (JUDGE_LIMITS). */
function largestJudgeCall(id: number, rand: () => number): string {
  const L = JUDGE_LIMITS;
  return judgeBody(id, {
    goal: words(L.goal, rand).slice(0, L.goal),
    step: 20,
    state_summary: words(L.stateSummary, rand).slice(0, L.stateSummary),
    recent_actions: Array.from({ length: L.actions }, (_, i) => ({ action: `read file ${i} ${words(L.action, rand)}`.slice(0, L.action), result: words(L.result, rand).slice(0, L.result) })),
    history: Array.from({ length: L.history }, (_, i) => ({ step: i, signal: 'continue' })),
  });
}

/** A call of about 1 MB, as the judge accepted before its fields had limits: now refused from its length. */
const megabyteJudgeCall = (id: number, rand: () => number) => judgeBody(id, { goal: 'g', step: 20, state_summary: words(180_000, rand).slice(0, 1_000_000) });

/** Words that occur in at most two of the corpus's passages. */
function rareWords(): string[] {
  const df = new Map<string, number>();
  for (const p of eachSotuPassage()) for (const w of new Set(p.text.toLowerCase().match(/[a-z]{6,}/g) ?? [])) df.set(w, (df.get(w) ?? 0) + 1);
  return [...df].filter(([, n]) => n <= 2).map(([w]) => w).sort();
}

function longTopic(words: string[], rand: () => number): string {
  let t = '';
  while (true) {
    const w = words[Math.floor(rand() * words.length)]!;
    if (t.length + w.length + 1 > TOPIC_CHARS) return t.padEnd(TOPIC_CHARS, 's');
    t += (t ? ' ' : '') + w;
  }
}

interface Phase {
  name: string;
  ms: number[];
  note: string;
}

async function main(): Promise<void> {
  const A = randomBytes(24).toString('hex');
  const B = randomBytes(24).toString('hex');
  const stack = await startBenchStack({ name: 'tenant-latency', workers: 1, env: { ENGINE: 'corpus', API_KEYS: `${A},${B}`, QUOTA_REQUESTS_PER_MINUTE: String(REQUESTS_PER_MINUTE) } });
  const rand = prng(SEED);
  const phases: Phase[] = [];
  let poller: Worker | undefined;
  try {
    const url = stack.url;
    // B's own run, done before measuring (its first question also brings the speeches into the store).
    const created = await fetch(`${url}/v1/research`, { method: 'POST', headers: auth(B), body: JSON.stringify({ topic: 'How have presidents talked about the national debt?' }) });
    if (created.status !== 202) throw new Error(`B's run: ${created.status} ${await created.text()}`);
    const runId = ((await created.json()) as { id: string }).id;
    const statusOf = async (key: string, id: string): Promise<string> => {
      // A reused connection the server closed meanwhile fails once; the next attempt opens another.
      for (let attempt = 0; ; attempt++) {
        try {
          return ((await (await fetch(`${url}/v1/research/${id}`, { headers: auth(key) })).json()) as { status: string }).status;
        } catch (err) {
          if (attempt >= 3) throw err;
        }
      }
    };
    for (let i = 0; i < 1200 && !['done', 'failed', 'cancelled'].includes(await statusOf(B, runId)); i++) await sleep(100);

    /** B polls its run (in its own thread) until `until` resolves; every answer's time is kept. */
    poller = new Worker(resolve(__dirname, 'tenant-b-poller.js'), { workerData: { url, key: B, runId } });
    const failed = new Promise<never>((_, reject) => poller!.once('error', reject));
    const poll = async (until: Promise<unknown>): Promise<number[]> => {
      const times = new Promise<number[]>((r) => poller!.once('message', r));
      poller!.postMessage('start');
      await Promise.race([until, failed]);
      poller!.postMessage('stop');
      return Promise.race([times, failed]);
    };
    // Warm the route.
    await poll(sleep(1000));

    if (PHASES.includes('idle')) phases.push({ name: 'no load', ms: await poll(sleep(SECONDS * 1000)), note: '' });

    /** A sends `bodies` to /mcp from JUDGE_THREADS callers while B polls; what each answered and how fast. */
    const judgeLoad = async (name: string, bodies: string[], expected: number): Promise<void> => {
      let stop = false;
      const answers = new Map<number | string, number>();
      const answerMs: number[] = [];
      const caller = async (t: number) => {
        for (let i = t; !stop; i += JUDGE_THREADS) {
          const t0 = performance.now();
          const answer = await fetch(`${url}/mcp`, { method: 'POST', headers: { ...auth(A), accept: 'application/json, text/event-stream' }, body: bodies[i % bodies.length]! }).then(
            async (res) => ({ status: res.status, text: await res.text() }),
            (err: Error & { cause?: { code?: string } }) => ({ status: err.cause?.code ?? err.message, text: '' }),
          );
          answerMs.push(performance.now() - t0);
          const { status, text } = answer;
          if (status === 200 && !text.includes('"signal')) throw new Error(`judge call answered without a verdict: ${text.slice(0, 300)}`);
          if (status === 413 && !text.includes('the limit of /mcp')) throw new Error(`413 without the limit: ${text.slice(0, 300)}`);
          answers.set(status, (answers.get(status) ?? 0) + 1);
        }
      };
      const load = Promise.all(Array.from({ length: JUDGE_THREADS }, (_, t) => caller(t)));
      const t0 = performance.now();
      const ms = await poll(sleep(SECONDS * 1000));
      stop = true;
      await load;
      const seconds = (performance.now() - t0) / 1000;
      const bodyKb = Math.round(Buffer.byteLength(bodies[0]!) / 1024);
      const counts = [...answers].map(([s, n]) => `${n} × ${s}${s === expected ? '' : ' (unexpected)'}`).join(', ');
      phases.push({ name: `${JUDGE_THREADS} × ${bodyKb} kB MCP judge calls${name}`, ms, note: `A: ${counts} (${(answerMs.length / seconds).toFixed(1)}/s, median answer ${median(answerMs).toFixed(0)} ms)` });
    };
    if (PHASES.includes('judge')) await judgeLoad('', Array.from({ length: 4 }, (_, i) => largestJudgeCall(i + 1, rand)), 200);
    if (PHASES.includes('judge-1mb')) await judgeLoad(' (over the limit)', Array.from({ length: 4 }, (_, i) => megabyteJudgeCall(i + 1, rand)), 413);

    if (PHASES.includes('topics')) {
      const words = rareWords();
      const ids: string[] = [];
      const t0 = performance.now();
      for (let i = 0; i < LONG_TOPICS; i++) {
        const topic = longTopic(words, rand);
        // A kept-alive connection the server closed after the last phase fails before it is read: sent again.
        const res = await fetch(`${url}/v1/research`, { method: 'POST', headers: auth(A), body: JSON.stringify({ topic }) }).catch(() => fetch(`${url}/v1/research`, { method: 'POST', headers: auth(A), body: JSON.stringify({ topic }) }));
        if (res.status !== 202) throw new Error(`A's long topic: ${res.status} ${await res.text()}`);
        ids.push(((await res.json()) as { id: string }).id);
      }
      const ended = (async () => {
        for (let i = 0; i < 1800; i++) {
          const states = await Promise.all(ids.map((id) => statusOf(A, id)));
          if (states.every((s) => ['done', 'failed', 'cancelled', 'needs_review'].includes(s))) return states;
          await sleep(200);
        }
        throw new Error("A's long-topic runs did not end in 6 minutes");
      })();
      const ms = await poll(ended);
      const states = await ended;
      phases.push({ name: `${LONG_TOPICS} runs, ${TOPIC_CHARS}-char rare-word topics`, ms, note: `A: runs ${states.join(', ')} in ${((performance.now() - t0) / 1000).toFixed(1)} s` });
    }
  } catch (err) {
    console.error(`coordinator exit ${stack.coordinator.exitCode} ${stack.coordinator.signalCode}`, stack.workerOutput().join('\n').slice(-3000));
    throw err;
  } finally {
    await poller?.terminate();
    await stack.stop();
  }

  const base = phases.find((p) => p.name === 'no load');
  console.log(`B's GET /v1/research/:id while A loads the coordinator (1 worker, corpus engine, seed ${SEED})`);
  console.log('| A does | B requests | B median ms | B p95 ms | B max ms | median × idle | p95 × idle | |');
  console.log('|---|---|---|---|---|---|---|---|');
  for (const p of phases) {
    const m = median(p.ms);
    const p95 = percentile(p.ms, 95);
    const ratio = (x: number, y: number | undefined) => (y ? `${(x / y).toFixed(1)}×` : '');
    console.log(`| ${p.name} | ${p.ms.length} | ${m.toFixed(1)} | ${p95.toFixed(1)} | ${Math.max(...p.ms).toFixed(0)} | ${ratio(m, base && median(base.ms))} | ${ratio(p95, base && percentile(base.ms, 95))} | ${p.note} |`);
  }
}

main().then(
  () => process.exit(0),
  (err: Error) => {
    console.error(err.stack ?? err.message, err.cause ?? '');
    process.exit(1);
  },
);
