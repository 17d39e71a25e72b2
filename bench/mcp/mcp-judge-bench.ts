/**
 * Latency of one `judge` call on the rules path over MCP, against the plain in-process call.
 *   npm run bench:mcp-judge -- [--calls 1000] [--batches 10] [--json]
 * Starts a coordinator (keyless, loopback) and calls `judge` with the official MCP client SDK over Streamable
 * HTTP (/mcp) and over stdio (`orrery-mcp` bridging to the same coordinator), one call at a time; the baseline,
 * `judgeStep` in this process on the same inputs, is measured in the same run, batch by batch interleaved with
 * the MCP calls so machine noise hits all alike. Prints the median and p90 per call and the ratios.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { toStepJudgeInput } from '@orrery/coordinator/dist/mcp/judge-tool';
import { judgeStep, type StepJudgeInput } from '@orrery/decisions';
import { JudgeToolInputSchema } from '@orrery/protocol';
import { resolve } from 'node:path';
import { readFlags } from '../support/flags';
import { median, percentile, startBenchStack } from '../support/service-stack';

const USAGE = 'Usage: npm run bench:mcp-judge -- [--calls 1000] [--batches 10] [--json]';
const flags = readFlags(process.argv.slice(2), { values: ['--calls', '--batches'], switches: ['--json'] }, USAGE);
const CALLS = flags.int('--calls') ?? 1000;
const BATCHES = flags.int('--batches') ?? 10;
const WARMUP = 50;

/** Rules-path inputs only (each decided at L0 with confidence >= 0.5): progress, budget, a loop, a loop in cooldown. */
const TOOL_INPUTS: Array<Record<string, unknown>> = [
  { recent_actions: [{ action: 'read a', result: 'x' }] },
  { max_steps: 12 },
  { recent_actions: ['q', 'q', 'q'] },
  { recent_actions: ['q', 'q', 'q'], history: [{ step: 11, signal: 'pivot' }] },
].map((extra) => ({ goal: 'find the failing test', step: 12, state_summary: 'three suites read', ...extra }));
/** The same inputs as the server hands them to the judge, converted once, outside the timing. */
const LIB_INPUTS: StepJudgeInput[] = TOOL_INPUTS.map((t) => toStepJudgeInput(JudgeToolInputSchema.parse(t)));

type Lane = { name: string; call: (i: number) => Promise<unknown>; ms: number[] };

async function timed(lane: Lane, from: number, n: number, keep: boolean): Promise<void> {
  for (let k = from; k < from + n; k++) {
    const t0 = process.hrtime.bigint();
    await lane.call(k);
    if (keep) lane.ms.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
}

async function main(): Promise<void> {
  const stack = await startBenchStack({ name: 'mcp-judge', workers: 0, env: { JUDGE: 'on' } });
  const clients: Client[] = [];
  try {
    const http = new Client({ name: 'bench', version: '1.0.0' });
    await http.connect(new StreamableHTTPClientTransport(new URL(`${stack.url}/mcp`)));
    const stdio = new Client({ name: 'bench', version: '1.0.0' });
    const bin = resolve(__dirname, '..', '..', '..', 'apps', 'cli', 'dist', 'mcp.js');
    await stdio.connect(new StdioClientTransport({ command: process.execPath, args: [bin], env: { PATH: process.env.PATH ?? '', ORRERY_URL: stack.url }, stderr: 'ignore' }));
    clients.push(http, stdio);

    const viaMcp = (client: Client) => async (i: number) => {
      const r = await client.callTool({ name: 'judge', arguments: TOOL_INPUTS[i % TOOL_INPUTS.length]! });
      if (r.isError) throw new Error(JSON.stringify(r.content));
      return r;
    };
    const lanes: Lane[] = [
      { name: 'in-process judgeStep (baseline)', call: (i) => judgeStep(LIB_INPUTS[i % LIB_INPUTS.length]!), ms: [] },
      { name: 'MCP over Streamable HTTP (/mcp)', call: viaMcp(http), ms: [] },
      { name: 'MCP over stdio (orrery-mcp → /mcp)', call: viaMcp(stdio), ms: [] },
    ];
    for (const lane of lanes) await timed(lane, 0, WARMUP, false);
    const per = Math.ceil(CALLS / BATCHES);
    for (let b = 0; b < BATCHES; b++) for (const lane of lanes) await timed(lane, b * per, per, true);

    const base = median(lanes[0]!.ms);
    const rows = lanes.map((l) => ({ lane: l.name, calls: l.ms.length, medianMs: median(l.ms), p90Ms: percentile(l.ms, 90), ratioToBaseline: median(l.ms) / base }));
    if (flags.has('--json')) {
      process.stdout.write(`${JSON.stringify({ calls: CALLS, batches: BATCHES, rows }, null, 2)}\n`);
      return;
    }
    console.log(`judge on the rules path: ${CALLS} calls per lane in ${BATCHES} interleaved batches, after ${WARMUP} warm-up calls; one call at a time\n`);
    console.log('| lane | calls | median | p90 | median / baseline |');
    console.log('|---|---:|---:|---:|---:|');
    const fmt = (ms: number) => (ms < 1 ? `${(ms * 1000).toFixed(1)} µs` : `${ms.toFixed(2)} ms`);
    for (const r of rows) console.log(`| ${r.lane} | ${r.calls} | ${fmt(r.medianMs)} | ${fmt(r.p90Ms)} | ${r.ratioToBaseline.toFixed(0)}× |`);
  } finally {
    for (const c of clients) await c.close().catch(() => undefined);
    await stack.stop();
  }
}

main().catch((err: Error) => {
  console.error(err.message);
  process.exit(1);
});
