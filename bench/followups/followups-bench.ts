/**
 * npm run bench:followups -- [--questions bench/followups/followup-questions.jsonl] [--workers 1] [--limit N] [--out bench-followups.json]
 *
 * Follow-ups against fresh runs, through the real service (a coordinator and worker processes on a key prefix of
 * their own, corpus engine, the embedded State of the Union speeches). For each parent topic: one parent run, then per
 * follow-up question a follow-up of that parent and a fresh run on the same question, in alternating order (so
 * neither always runs on warm caches). Per question: the share of the parent's cited sources the follow-up cites
 * again ("reuse"), the share of the follow-up's own citations it inherited (in the parent's ledger, cited or not:
 * citable without a search), the searches it dispatched, tasks dispatched and wall time
 * (submit to done, seen by the client) of each; medians per kind of follow-up (`same`: more on the parent's topic;
 * `narrower`: one aspect of it, where only the parent's sources that bear on it should come back).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { loadavg } from 'node:os';
import type { Run } from '@orrery/protocol';
import { z } from 'zod';
import { readFlags } from '../support/flags';
import { median, startBenchStack } from '../support/service-stack';

const USAGE = 'usage: bench:followups -- [--questions FILE.jsonl] [--workers N] [--limit N] [--out FILE.json]';

const ItemSchema = z.strictObject({
  parent: z.string().min(1),
  followups: z.array(z.strictObject({ kind: z.enum(['same', 'narrower']), question: z.string().min(1) })).min(1),
});

interface Row {
  parent: string;
  kind: 'same' | 'narrower';
  question: string;
  parentCited: number;
  followCited: number;
  reused: number;
  reuse: number;
  /** Of the follow-up's cited sources, the share that were in the parent's ledger. */
  inheritedShare: number;
  followTasks: number;
  freshTasks: number;
  followSearches: number;
  followMs: number;
  freshMs: number;
}

async function main(): Promise<void> {
  const flags = readFlags(process.argv.slice(2), { values: ['--questions', '--workers', '--limit', '--out'] }, USAGE);
  const path = resolve(flags.value('--questions') ?? resolve(__dirname, '../../followups/followup-questions.jsonl'));
  const items = readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l, i) => {
      const parsed = ItemSchema.safeParse(JSON.parse(l));
      if (!parsed.success) throw new Error(`${path}:${i + 1}: ${parsed.error.issues.map((x) => `${x.path.join('.')}: ${x.message}`).join('; ')}`);
      return parsed.data;
    })
    .slice(0, flags.int('--limit') ?? Infinity);
  const stack = await startBenchStack({ name: 'followups', workers: flags.int('--workers') ?? 1, env: { ENGINE: 'corpus', DEFAULT_CORPUS: 'sotu' } });
  const c = stack.client;
  const loads: number[] = [];
  const timed = async (start: () => Promise<{ id: string }>): Promise<{ run: Run; ms: number }> => {
    const t0 = Date.now();
    const { id } = await start();
    const status = await c.waitForEnd(id);
    const ms = Date.now() - t0;
    if (status !== 'done') throw new Error(`run ${id} ended ${status}`);
    loads.push(loadavg()[0]!);
    return { run: await c.run(id), ms };
  };
  const cited = async (id: string) => new Set((await c.report(id)).sources.map((s) => s.id));
  const inParentLedger = async (parentId: string, sourceId: string) => (await fetch(`${stack.url}/v1/research/${parentId}/sources/${encodeURIComponent(sourceId)}`)).status === 200;
  const rows: Row[] = [];
  try {
    // One run first, outside the figures: the corpus is indexed on the first question a worker gets.
    await timed(() => c.submit({ topic: items[0]!.parent, corpus: 'sotu' }));
    let n = 0;
    for (const item of items) {
      const parent = await timed(() => c.submit({ topic: item.parent, corpus: 'sotu' }));
      const parentCited = await cited(parent.run.id);
      for (const f of item.followups) {
        const follow = () => timed(() => c.followUp(parent.run.id, { question: f.question }));
        const fresh = () => timed(() => c.submit({ topic: f.question, corpus: 'sotu' }));
        let a: { run: Run; ms: number };
        let b: { run: Run; ms: number };
        if (n++ % 2 === 0) {
          a = await follow();
          b = await fresh();
        } else {
          b = await fresh();
          a = await follow();
        }
        const followCited = await cited(a.run.id);
        const reused = [...parentCited].filter((s) => followCited.has(s)).length;
        const inherited = (await Promise.all([...followCited].map((s) => inParentLedger(parent.run.id, s)))).filter(Boolean).length;
        const row: Row = {
          parent: item.parent,
          kind: f.kind,
          question: f.question,
          parentCited: parentCited.size,
          followCited: followCited.size,
          reused,
          reuse: parentCited.size ? reused / parentCited.size : 0,
          inheritedShare: followCited.size ? inherited / followCited.size : 0,
          followTasks: a.run.counters.tasksDispatched,
          freshTasks: b.run.counters.tasksDispatched,
          followSearches: a.run.rounds.reduce((s, r) => s + r.taskIds.length, 0),
          followMs: a.ms,
          freshMs: b.ms,
        };
        rows.push(row);
        console.log(
          `${f.kind.padEnd(8)} ${f.question.slice(0, 60).padEnd(60)} reuse ${row.reused}/${row.parentCited} (${pct(row.reuse)}), inherited ${pct(row.inheritedShare)} of ${row.followCited}; ` +
            `searches ${row.followSearches}, tasks ${row.followTasks} vs ${row.freshTasks}; ${row.followMs} ms vs ${row.freshMs} ms`,
        );
      }
    }
  } finally {
    await stack.stop();
  }
  const summary = Object.fromEntries(
    (['same', 'narrower'] as const).map((kind) => {
      const rs = rows.filter((r) => r.kind === kind);
      return [
        kind,
        {
          questions: rs.length,
          medianReuse: median(rs.map((r) => r.reuse)),
          reuseAtLeastHalf: rs.filter((r) => r.reuse >= 0.5).length,
          medianInheritedShare: median(rs.map((r) => r.inheritedShare)),
          medianWallRatio: median(rs.map((r) => r.followMs / r.freshMs)),
          followFaster: rs.filter((r) => r.followMs < r.freshMs).length,
          medianTasks: { followUp: median(rs.map((r) => r.followTasks)), fresh: median(rs.map((r) => r.freshTasks)) },
        },
      ];
    }),
  );
  const out = { questions: path, rows, summary, loadAverage1m: { min: Math.min(...loads), max: Math.max(...loads), median: median(loads) } };
  console.log(JSON.stringify({ summary, loadAverage1m: out.loadAverage1m }, null, 2));
  writeFileSync(flags.value('--out') ?? 'bench-followups.json', JSON.stringify(out, null, 2));
}

const pct = (x: number) => `${Math.round(x * 100)}%`;

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
