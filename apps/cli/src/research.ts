import { parseArgs } from 'node:util';
import { resolve } from 'node:path';
import { createHash } from 'node:crypto';
import { existsSync, realpathSync } from 'node:fs';
import { describeBill, describeUsage } from '@orrery/engine';
import { sourceOf } from '@orrery/passages/ingest';
import { EngineNameSchema, loadQueuePrefix, ReviewRequestSchema } from '@orrery/protocol';
import { readRedisLocation } from '@orrery/runtime';
import { loadSubagentConfig } from '@orrery/subagents';
import { OrreryClient } from './client/orrery-client';
import { ingestAndWait } from './ingest/ingest-and-wait';
import { ProgressRenderer } from './progress/progress-renderer';
import { reviewPlan } from './review/plan-review-prompt';
import { untilReview } from './review/until-plan-review';
import { type LocalService, startLocalService } from './service/local-service';
import { interruption } from './terminal/interruption';
import { reportForStdout } from './terminal/report-output';
import { forTerminal, jsonForTerminal } from './terminal/terminal-text';

const USAGE = `Usage: npm run -s research -- "<question>" [--json] [--format markdown|json|html|docx|pdf] [--corpus PATH] [--engine ${EngineNameSchema.options.join('|')}] [--follow RUN_ID] [--review] [--auto-approve SECONDS]

Runs one research job and prints its cited report: laid out for the terminal when stdout is one, else as Markdown
(or JSON with --json). npm's -s keeps its own banner off stdout, so "npm run -s research -- ... --json | jq" works.
Uses the Orrery server at ORRERY_URL if one answers; otherwise starts the coordinator and a worker here, under a
queue prefix of their own (QUEUE_PREFIX joins a deployment's queues instead); those runs expire 10 minutes after
they end. Ctrl-C cancels the run.
--corpus PATH  a JSONL file ({id,text,title?,url?} per line) or a folder of .md/.txt/.html files to research instead of the bundled speeches.
               It is ingested into the passage store first; asked again, an unchanged file is not read again.

--format F     print the report as markdown (the default), json, html (one self-contained page), docx or pdf;
               docx and pdf are binary: redirect stdout to a file (npm run -s research -- "..." --format pdf > report.pdf).
--follow ID    ask the question as a follow-up on a finished run: it starts from that run's sources and findings (same engine and corpus).
--review       show the plan before anything is searched and ask about it: Enter or y approves, n stops, anything else is
               feedback in words ("leave out the 1800s; add tariffs") and the revised plan is asked about again.
               Answers are read line by line from stdin when it is not a terminal.
--auto-approve SECONDS  with --review (implied): a plan nobody answers in time is approved as it stands.`;

/** The stored corpus a local path is ingested as: one per path, so two folders never replace each other's passages. */
function localCorpusName(path: string): string {
  return `local-${createHash('sha1').update(realpathSync(path)).digest('hex').slice(0, 12)}`;
}
/** The exit status of a run stopped by Ctrl-C, as shells report a command ended by SIGINT. */
const INTERRUPTED = 130;
/** What --format takes: the service's report formats. */
const CLI_FORMATS = ['markdown', 'json', 'html', 'docx', 'pdf'];

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { json: { type: 'boolean' }, format: { type: 'string' }, corpus: { type: 'string' }, engine: { type: 'string' }, follow: { type: 'string' }, review: { type: 'boolean' }, 'auto-approve': { type: 'string' }, help: { type: 'boolean', short: 'h' } },
  });
  const topic = positionals.join(' ').trim();
  if (values.help || !topic) {
    process.stderr.write(`${USAGE}\n`);
    return values.help ? 0 : 2;
  }
  const format = values.json ? 'json' : (values.format ?? 'markdown');
  if (!CLI_FORMATS.includes(format)) {
    process.stderr.write(`--format: one of ${CLI_FORMATS.join(', ')}\n`);
    return 2;
  }
  if ((format === 'docx' || format === 'pdf') && process.stdout.isTTY) {
    process.stderr.write(`--format ${format}: binary; redirect stdout to a file\n`);
    return 2;
  }
  if (values.follow && (values.corpus || values.engine)) {
    process.stderr.write('--follow: a follow-up uses its parent run\'s engine and corpus; drop --corpus and --engine\n');
    return 2;
  }
  // The object form of a review request, so that --auto-approve is checked as the server checks it.
  const reviewSchema = ReviewRequestSchema.options[1];
  let review: ReturnType<typeof reviewSchema.parse> | undefined;
  if (values.review || values['auto-approve'] !== undefined) {
    const seconds = values['auto-approve'];
    const parsed = reviewSchema.safeParse({ mode: 'plan', ...(seconds === undefined ? {} : { autoApproveAfterSeconds: Number(seconds) }) });
    if (!parsed.success) {
      process.stderr.write(`--auto-approve: ${parsed.error.issues.map((i) => i.message).join('; ')}\n`);
      return 2;
    }
    review = parsed.data;
  }
  const corpusPath = values.corpus ? resolve(values.corpus) : undefined;
  if (corpusPath && !existsSync(corpusPath)) {
    process.stderr.write(`--corpus: ${corpusPath} does not exist\n`);
    return 2;
  }

  const interrupted = interruption();
  let starting: Promise<LocalService> | undefined;
  let service: LocalService | undefined;
  let client: OrreryClient | undefined;
  const remote = process.env.ORRERY_URL ? new OrreryClient(process.env.ORRERY_URL.replace(/\/$/, ''), process.env.ORRERY_API_KEY) : undefined;
  try {
    if (remote && (await remote.healthy())) {
      if (corpusPath) throw new Error(`--corpus PATH registers a local file, so it needs the in-process service; unset ORRERY_URL, or add the corpus to the server's CORPORA`);
      client = remote;
      process.stderr.write(`[orrery] using the server at ${remote.baseUrl}\n`);
    } else {
      starting = startLocalService({ log: (line) => process.stderr.write(line) });
      service = await interrupted.race(starting);
      client = new OrreryClient(service.url);
    }
    let corpus: string | undefined;
    if (corpusPath) {
      corpus = localCorpusName(corpusPath);
      const { progress } = await interrupted.race(
        ingestAndWait({
          location: readRedisLocation(process.env),
          prefix: loadQueuePrefix(),
          corpus,
          // The user's own path: its reads stay within it (symlinks resolved).
          source: sourceOf(corpusPath, [corpusPath]),
          attempts: loadSubagentConfig().INGEST_ATTEMPTS,
          log: (line) => process.stderr.write(line),
        }),
      );
      if (progress.status === 'failed') throw new Error(`--corpus: the ingest failed: ${progress.error ?? 'no reason recorded'}`);
    }

    const engine = values.engine === undefined ? undefined : EngineNameSchema.parse(values.engine);
    const started = Date.now();
    const { id } = await interrupted.race(
      values.follow
        ? client.followUp(values.follow, { question: topic, ...(review ? { review } : {}) })
        : client.submit({ topic, ...(engine ? { engine } : {}), ...(corpus ? { corpus } : {}), ...(review ? { review } : {}) }),
    );
    let progress = new ProgressRenderer();
    let status: string;
    try {
      let lastEventId: string | undefined;
      if (review) {
        const reached = await interrupted.race(untilReview(client, id, (e) => progress.onEvent(e), interrupted.signal));
        lastEventId = reached.lastEventId;
        const plan = reached.waiting ? (await client.run(id)).proposedPlan : undefined;
        if (plan) {
          // The spinner would write over the question.
          progress.stop();
          await interrupted.race(reviewPlan(client, id, plan, review.autoApproveAfterSeconds !== undefined, interrupted.signal));
          progress = new ProgressRenderer();
        }
      }
      status = await interrupted.race(client.waitForEnd(id, (e) => progress.onEvent(e), interrupted.signal, lastEventId));
    } catch (err) {
      if (!interrupted.signal.aborted) throw err;
      progress.stop();
      const run = await client.cancel(id).catch(() => undefined);
      process.stderr.write(`[orrery] interrupted: run ${id} ${run?.status === 'cancelled' ? 'cancelled' : `not cancelled (${run?.status ?? 'the service did not answer'})`}\n`);
      return INTERRUPTED;
    } finally {
      progress.stop();
    }
    const run = await client.run(id);
    process.stderr.write(`[orrery] run ${id} ended ${status} in ${((Date.now() - started) / 1000).toFixed(1)} s; cost ${describeUsage(run.usage)}\n`);
    process.stderr.write(forTerminal(describeBill(run.bill).map((l) => `[orrery] bill: ${l}\n`).join('')));
    if (service) process.stderr.write(`[orrery] kept for 10 minutes: QUEUE_PREFIX=${service.prefix} npm run -s replay -- ${id}\n`);
    if (status !== 'done') {
      process.stderr.write(forTerminal(`[orrery] errors: ${run.errors.map((e) => e.message).join('; ') || 'none recorded'}\n`));
      return 1;
    }
    if (format === 'json') process.stdout.write(`${jsonForTerminal(await client.report(id))}\n`);
    else if (format === 'markdown') process.stdout.write(reportForStdout(await client.reportMarkdown(id), process.stdout, process.env));
    else process.stdout.write(await client.reportAs(id, format));
    return 0;
  } catch (err) {
    if (interrupted.signal.aborted) {
      process.stderr.write('[orrery] interrupted before the run started\n');
      return INTERRUPTED;
    }
    throw err;
  } finally {
    // Interrupted while it started, the service is closed once it is up.
    await (service ? service.close() : starting?.then((s) => s.close(), () => undefined));
  }
}

main().then(
  (code) => process.exit(code),
  (err) => {
    process.stderr.write(forTerminal(`orrery: ${err instanceof Error ? err.message : String(err)}\n`));
    process.exit(1);
  },
);
