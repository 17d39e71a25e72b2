/**
 * False positives of the redaction rules on the bundled State of the Union speeches (which hold no personal data):
 *   npm run bench:redaction [-- --json]
 * Lists every value redaction would take from them (year, president, kind, value, context) and counts them per
 * kind, then times redaction over all speeches against a baseline measured in the same run: JSON.stringify of the
 * same texts (what merely logging them costs). Last, it times hostile shapes (one 500k- and one 1M-character run
 * of letters, digits, labels…) against the same baseline: a rule that backtracks shows as a ratio that doubles
 * with the length.
 */
import { loadSotuSpeeches } from '@orrery/passages/ingest';
import { redact, REDACTION_KINDS } from '@orrery/claude-engine';
import { readFlags } from '../support/flags';
import { sotuRedactions } from './sotu-redactions';

const USAGE = 'Usage: npm run bench:redaction [-- --json]';
const flags = readFlags(process.argv.slice(2), { values: [], switches: ['--json'] }, USAGE);

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

const speeches = loadSotuSpeeches();
const chars = speeches.reduce((n, s) => n + s.text.length, 0);
const found = sotuRedactions(speeches);
const perKind = Object.fromEntries(REDACTION_KINDS.map((k) => [k, found.filter((f) => f.kind === k).length]));

let sink = 0;
const time = (fn: (text: string) => number): number => {
  const t0 = process.hrtime.bigint();
  for (const s of speeches) sink += fn(s.text);
  return Number(process.hrtime.bigint() - t0) / 1e6;
};
const redactMs: number[] = [];
const stringifyMs: number[] = [];
for (let i = 0; i < 5; i++) {
  redactMs.push(time((t) => redact(t).text.length));
  stringifyMs.push(time((t) => JSON.stringify(t).length));
}
const timing = { redactMs: median(redactMs), jsonStringifyMs: median(stringifyMs), ratio: median(redactMs) / median(stringifyMs) };

const SHAPES: Record<string, (n: number) => string> = {
  letters: (n) => 'a'.repeat(n),
  digits: (n) => '1'.repeat(n),
  labels: (n) => `x@${'a.'.repeat(n / 2)}`,
  'hex pairs': (n) => 'ab:'.repeat(n / 3),
  'IBAN-like': (n) => 'AB12'.repeat(n / 4),
  'digit groups': (n) => '1 '.repeat(n / 2),
};
const medianMs = (fn: () => unknown): number => {
  const runs: number[] = [];
  for (let i = 0; i < 9; i++) {
    const t0 = process.hrtime.bigint();
    fn();
    runs.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  return median(runs);
};
const hostile = Object.entries(SHAPES).map(([shape, make]) => {
  const [short, long] = [500_000, 1_000_000].map((n) => {
    const text = make(n);
    const redactMs = medianMs(() => (sink += redact(text).text.length));
    const baselineMs = medianMs(() => (sink += JSON.stringify(text).length));
    return { chars: text.length, redactMs, baselineMs, ratio: redactMs / baselineMs };
  });
  return { shape, short: short!, long: long!, growth: long!.redactMs / short!.redactMs };
});

if (flags.has('--json')) {
  process.stdout.write(`${JSON.stringify({ speeches: speeches.length, chars, falsePositives: found.length, perKind, found, timing, hostile }, null, 2)}\n`);
} else {
  for (const f of found) process.stdout.write(`${f.year} ${f.president} [${f.kind}] ${JSON.stringify(f.value)}: …${f.context}…\n`);
  process.stdout.write(`${speeches.length} speeches, ${chars} characters: ${found.length} redactions (${REDACTION_KINDS.map((k) => `${k} ${perKind[k]}`).join(', ')})\n`);
  process.stdout.write(`redact over all speeches: ${timing.redactMs.toFixed(0)} ms median of 5; JSON.stringify of the same texts ${timing.jsonStringifyMs.toFixed(0)} ms; ratio ${timing.ratio.toFixed(1)}\n`);
  process.stdout.write('hostile shapes, median of 9 (ratio to JSON.stringify of the same text): 500k chars, 1M chars, growth\n');
  for (const h of hostile) {
    process.stdout.write(`  ${h.shape}: ${h.short.redactMs.toFixed(1)} ms (${h.short.ratio.toFixed(0)}x), ${h.long.redactMs.toFixed(1)} ms (${h.long.ratio.toFixed(0)}x), ${h.growth.toFixed(2)}x\n`);
  }
}
if (sink < 0) process.stdout.write('');
