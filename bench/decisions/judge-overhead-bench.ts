import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { type BenchStack, median, percentile, startBenchStack } from '../support/service-stack';

/**
 * What the decision layer adds to a run's wall time: the same simulated runs through two coordinators,
 * one with JUDGE=on and one with JUDGE=off, interleaved in one invocation so machine noise hits both.
 */
async function main(): Promise<void> {
  const { values } = parseArgs({ options: { runs: { type: 'string', default: '20' }, latency: { type: 'string', default: '100' }, out: { type: 'string' } } });
  const runs = Number(values.runs);
  const env = { ENGINE: 'simulated', SIMULATED_SUBTOPICS: '6', SIMULATED_ROUNDS: '3', SIMULATED_EMPTY_EVERY: '0' };
  const workerEnv = { SIMULATED_LATENCY_MS: String(values.latency), SUBAGENT_CONCURRENCY: '8' };
  const stacks: Record<'on' | 'off', BenchStack> = {
    on: await startBenchStack({ name: 'judge-on', workers: 1, env: { ...env, JUDGE: 'on' }, workerEnv }),
    off: await startBenchStack({ name: 'judge-off', workers: 1, env: { ...env, JUDGE: 'off' }, workerEnv }),
  };
  const walls: Record<'on' | 'off', number[]> = { on: [], off: [] };
  try {
    const once = async (mode: 'on' | 'off', i: number) => {
      const t0 = performance.now();
      const { id } = await stacks[mode].client.submit({ topic: `renewable energy overview ${i}`, engine: 'simulated' });
      const status = await stacks[mode].client.waitForEnd(id);
      if (status !== 'done') throw new Error(`run ${id} (${mode}) ended ${status}`);
      return performance.now() - t0;
    };
    await once('on', -1);
    await once('off', -1);
    for (let i = 0; i < runs; i++) {
      const order: Array<'on' | 'off'> = i % 2 ? ['off', 'on'] : ['on', 'off'];
      for (const mode of order) walls[mode].push(await once(mode, i));
    }
  } finally {
    await stacks.on.stop();
    await stacks.off.stop();
  }
  const row = (mode: 'on' | 'off') => ({ median: median(walls[mode]), p90: percentile(walls[mode], 90) });
  const result = { runs, latencyMs: Number(values.latency), judgeOn: row('on'), judgeOff: row('off'), ratio: median(walls.on) / median(walls.off) };
  console.log('| JUDGE | runs | median wall ms | p90 wall ms |');
  console.log('| --- | --- | --- | --- |');
  console.log(`| on | ${runs} | ${result.judgeOn.median.toFixed(0)} | ${result.judgeOn.p90.toFixed(0)} |`);
  console.log(`| off | ${runs} | ${result.judgeOff.median.toFixed(0)} | ${result.judgeOff.p90.toFixed(0)} |`);
  console.log(`\ndecision layer overhead: on/off median ratio ${result.ratio.toFixed(3)} (target < 1.05)`);
  if (values.out) writeFileSync(values.out, `${JSON.stringify(result, null, 2)}\n`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
