import { RunKeys } from '@orrery/coordinator';
import { loadQueuePrefix, RunEventSchema, type StoredRunEvent } from '@orrery/protocol';
import { connectRedis, readRedisLocation } from '@orrery/runtime';
import { formatTimeline } from './replay/format-timeline';
import { forTerminal } from './terminal/terminal-text';

/** `npm run replay -- <runId>`: prints a run's timeline from its event stream, live or finished. */
async function main(): Promise<number> {
  const runId = process.argv[2];
  if (!runId || runId === '--help') {
    process.stderr.write('Usage: npm run replay -- <runId>   (reads the Redis settings and QUEUE_PREFIX like the service)\n');
    return runId ? 0 : 2;
  }
  const redis = connectRedis(readRedisLocation(process.env), { maxRetriesPerRequest: 1 });
  try {
    const key = new RunKeys(loadQueuePrefix()).events(runId);
    const events: StoredRunEvent[] = [];
    let start = '-';
    for (;;) {
      const page = await redis.xrange(key, start, '+', 'COUNT', 1000);
      for (const [id, fields] of page) events.push({ ...RunEventSchema.parse(JSON.parse(fields[fields.indexOf('event') + 1]!)), id });
      if (page.length < 1000) break;
      start = `(${page[page.length - 1]![0]}`;
    }
    if (!events.length) {
      process.stderr.write(`no events for run ${forTerminal(runId)} (unknown, expired, or another QUEUE_PREFIX or Redis)\n`);
      return 1;
    }
    process.stdout.write(`${forTerminal(formatTimeline(events))}\n`);
    return 0;
  } finally {
    redis.disconnect();
  }
}

main().then(
  (code) => process.exit(code),
  (err) => {
    process.stderr.write(forTerminal(`replay: ${err instanceof Error ? err.message : String(err)}\n`));
    process.exit(1);
  },
);
