import { parseArgs } from 'node:util';
import { resolve } from 'node:path';
import { existsSync } from 'node:fs';
import { describeUsage } from '@orrery/engines';
import { OrreryClient } from './client/orrery-client';
import { ProgressRenderer } from './progress/progress-renderer';
import { type LocalService, startLocalService } from './service/local-service';
import { forTerminal, jsonForTerminal } from './terminal/terminal-text';

const USAGE = `Usage: npm run research -- "<question>" [--json] [--corpus PATH] [--engine auto|corpus|anthropic|simulated] [--follow RUN_ID]

Runs one research job and prints its cited report (Markdown, or JSON with --json).
Uses the Orrery server at ORRERY_URL if one answers; otherwise starts the coordinator and a worker here.
--corpus PATH  a JSONL file ({id,text,title?,url?} per line) or a folder of .md/.txt files to research instead of the bundled speeches.
--follow ID    ask the question as a follow-up on a finished run: it starts from that run's sources and findings (same engine and corpus).`;

const LOCAL_CORPUS = 'local';

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { json: { type: 'boolean' }, corpus: { type: 'string' }, engine: { type: 'string' }, follow: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
  });
  const topic = positionals.join(' ').trim();
  if (values.help || !topic) {
    process.stderr.write(`${USAGE}\n`);
    return values.help ? 0 : 2;
  }
  if (values.follow && (values.corpus || values.engine)) {
    process.stderr.write('--follow: a follow-up uses its parent run\'s engine and corpus; drop --corpus and --engine\n');
    return 2;
  }
  const corpusPath = values.corpus ? resolve(values.corpus) : undefined;
  if (corpusPath && !existsSync(corpusPath)) {
    process.stderr.write(`--corpus: ${corpusPath} does not exist\n`);
    return 2;
  }

  let service: LocalService | undefined;
  let client: OrreryClient | undefined;
  const remote = process.env.ORRERY_URL ? new OrreryClient(process.env.ORRERY_URL.replace(/\/$/, ''), process.env.ORRERY_API_KEY) : undefined;
  try {
    if (remote && (await remote.healthy())) {
      if (corpusPath) throw new Error(`--corpus PATH registers a local file, so it needs the in-process service; unset ORRERY_URL, or add the corpus to the server's CORPORA`);
      client = remote;
      process.stderr.write(`[orrery] using the server at ${remote.baseUrl}\n`);
    } else {
      service = await startLocalService({ extraCorpora: corpusPath ? [`${LOCAL_CORPUS}=${corpusPath}`] : [], log: (line) => process.stderr.write(line) });
      client = new OrreryClient(service.url);
    }

    const engine = values.engine as 'auto' | 'corpus' | 'anthropic' | 'simulated' | undefined;
    const started = Date.now();
    const { id } = values.follow
      ? await client.followUp(values.follow, { question: topic })
      : await client.submit({ topic, ...(engine ? { engine } : {}), ...(corpusPath ? { corpus: LOCAL_CORPUS } : {}) });
    const progress = new ProgressRenderer();
    let status: string;
    try {
      status = await client.waitForEnd(id, (e) => progress.onEvent(e));
    } finally {
      progress.stop();
    }
    const run = await client.run(id);
    process.stderr.write(`[orrery] run ${id} ended ${status} in ${((Date.now() - started) / 1000).toFixed(1)} s; cost ${describeUsage(run.usage)}\n`);
    if (status !== 'done') {
      process.stderr.write(forTerminal(`[orrery] errors: ${run.errors.map((e) => e.message).join('; ') || 'none recorded'}\n`));
      return 1;
    }
    process.stdout.write(values.json ? `${jsonForTerminal(await client.report(id))}\n` : forTerminal(await client.reportMarkdown(id)));
    return 0;
  } finally {
    await service?.close();
  }
}

main().then(
  (code) => process.exit(code),
  (err) => {
    process.stderr.write(forTerminal(`orrery: ${err instanceof Error ? err.message : String(err)}\n`));
    process.exit(1);
  },
);
