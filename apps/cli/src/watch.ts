import type { Watch } from '@orrery/protocol';
import { OrreryClient } from './client/orrery-client';
import { forTerminal } from './terminal/terminal-text';

const USAGE = `Usage (against the server at ORRERY_URL, with ORRERY_API_KEY if it needs one):
  npm run watch -- add "<question>" --every 1d [--corpus NAME] [--webhook URL]
  npm run watch -- list
  npm run watch -- pause|resume|delete <watch id>
`;

const flag = (args: string[], name: string): string | undefined => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};

/** One watch in a few lines: its question and schedule, then each run, newest first, with what changed. */
function describe(w: Watch): string {
  const runs = [...w.runs].reverse().map((r) => `  ${r.at} ${r.status} ${r.runId}${r.changes ? (r.changed ? `\n    ${r.changes.summary.split('\n').join('\n    ')}` : ' (nothing changed)') : ''}`);
  return [`${w.id} ${w.status} every ${w.everySeconds} s${w.corpus ? ` corpus ${w.corpus}` : ''}: ${w.question}`, ...runs].join('\n');
}

/** `npm run watch`: the REST API's watch routes from a terminal. */
async function main(): Promise<number> {
  const [command, ...args] = process.argv.slice(2);
  const url = process.env.ORRERY_URL;
  if (!command || command === '--help' || !url) {
    process.stderr.write(USAGE);
    return command === '--help' ? 0 : 2;
  }
  const client = new OrreryClient(url.replace(/\/$/, ''), process.env.ORRERY_API_KEY);
  const out = (text: string) => process.stdout.write(`${forTerminal(text)}\n`);
  if (command === 'add') {
    const every = flag(args, '--every');
    const question = args[0];
    if (!question || !every) {
      process.stderr.write(USAGE);
      return 2;
    }
    const corpus = flag(args, '--corpus');
    const webhook = flag(args, '--webhook');
    out(describe(await client.watch({ question, every: /^\d+$/.test(every) ? Number(every) : every, ...(corpus ? { corpus } : {}), ...(webhook ? { webhook: { url: webhook } } : {}) })));
  } else if (command === 'list') {
    const watches = await client.watches();
    out(watches.length ? watches.map(describe).join('\n\n') : 'no watches');
  } else if ((command === 'pause' || command === 'resume') && args[0]) {
    out(describe(await client.changeWatch(args[0], command)));
  } else if (command === 'delete' && args[0]) {
    await client.deleteWatch(args[0]);
    out(`deleted ${args[0]}`);
  } else {
    process.stderr.write(USAGE);
    return 2;
  }
  return 0;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    process.stderr.write(forTerminal(`watch: ${err instanceof Error ? err.message : String(err)}\n`));
    process.exit(1);
  },
);
