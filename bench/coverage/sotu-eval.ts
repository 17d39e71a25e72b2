/**
 * In-process look at the bundled-speeches experience: runs the research loop on the built-in `sotu`
 * corpus for each question and prints the subtopic titles, the years cited, and each section's quotes.
 *
 *   node bench/dist/coverage/sotu-eval.js ["question" ...] [--quotes]
 */
import { CorpusCoordinatorEngine, CorpusRegistry, CorpusSubagentEngine, topicProfile } from '@orrery/corpus-engine';
import { DEFAULT_LOOP, runResearchLoop } from './research-loop';

const DEFAULT_QUESTIONS = ['How have presidents addressed the economy?', 'How have U.S. presidents talked about immigration?'];

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const quotes = argv.includes('--quotes');
  const questions = argv.filter((a) => !a.startsWith('--'));
  const registry = new CorpusRegistry({ store: null });
  const coord = new CorpusCoordinatorEngine(registry);
  const sub = new CorpusSubagentEngine(registry);
  for (const q of questions.length ? questions : DEFAULT_QUESTIONS) {
    const t0 = Date.now();
    const profile = topicProfile((await registry.forTopic('sotu', q)).index, q);
    const r = await runResearchLoop(coord, sub, { ...DEFAULT_LOOP, topic: q, corpus: 'sotu' });
    const cited = new Set(r.report.sections.flatMap((s) => s.paragraphs.flatMap((p) => p.citations.map((c) => c.sourceId))));
    const years = [...cited].map((id) => Number(/-(\d{4})-/.exec(id)?.[1])).sort((a, b) => a - b);
    const evYears = profile.evidence.map((e) => Number(/-(\d{4})-/.exec(e.id)?.[1])).sort((a, b) => a - b);
    const decades = new Set(years.map((y) => Math.floor(y / 10) * 10));
    console.log(`\n=== ${q}  (${Date.now() - t0} ms, ${r.rounds} rounds, ${r.tasks} tasks, stop ${r.stopReason})`);
    console.log(`topic terms: ${profile.terms.join(' ')}; evidence ${profile.evidence.length} passages, years ${evYears[0]}-${evYears[evYears.length - 1]}`);
    console.log(`cited ${cited.size}: years ${years.join(' ')}  (${decades.size} decades, ${new Set(years).size} speeches-years)`);
    for (const s of r.report.sections) {
      console.log(`## ${s.title}`);
      if (quotes) for (const p of s.paragraphs) for (const c of p.citations) console.log(`   [${c.sourceId}] ${c.quote?.slice(0, 160)}`);
    }
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
