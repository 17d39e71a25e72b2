import { PlanSchema, SearchTaskSchema, type Finding, type SearchTask, type Source, type SynthesizeTask } from '@orrery/protocol';
import { describe, expect, it } from 'vitest';
import { CorpusCoordinatorEngine } from './plan/corpus-coordinator-engine';
import { CorpusRegistry } from './index/corpus-registry';
import { CorpusSubagentEngine } from './search/corpus-subagent-engine';
import type { Passage } from '@orrery/passages';
import { expectedPassages, OVERVIEW_ID } from './plan/subtopic-builder';
import { topicProfile } from './profile/topic-profile';

/**
 * A small corpus: the article on "Hurricane Zelda" has four facets (meteorology, preparations,
 * impact, aftermath). Only the meteorology passages repeat the storm's full name, so a first scouting
 * search for the topic sees one facet. Around it: another hurricane (Orlo), an election, an album.
 */
function hurricaneCorpus(): Passage[] {
  const ps: Passage[] = [];
  const add = (id: string, text: string): void => void ps.push({ id, title: id, text });
  const met = [
    'Hurricane Zelda formed from a tropical wave west of the Cape Lirio islands on August 21. Hurricane Zelda then drifted north over warm water.',
    'Low wind shear let Hurricane Zelda organize quickly, and Hurricane Zelda reached tropical storm strength on August 22 with a central pressure of 1002 millibars.',
    'Rapid intensification followed: Hurricane Zelda developed a clear eye and Hurricane Zelda became a Category 3 hurricane by August 24.',
    'An eyewall replacement cycle briefly weakened Hurricane Zelda, but Hurricane Zelda regained strength over the warm loop current.',
    'Hurricane Zelda peaked with sustained winds of 130 mph; reconnaissance aircraft measured a pressure of 948 millibars inside Hurricane Zelda.',
    'Dry air and rising wind shear eroded Hurricane Zelda, and Hurricane Zelda made landfall near Port Marlow in Dane County on August 27 as a Category 2 hurricane.',
    'After landfall Hurricane Zelda weakened over land; the remnants of Hurricane Zelda merged with a cold front over the Keswick plains.',
    'Forecasters noted that the track of Hurricane Zelda was unusually well predicted; Hurricane Zelda followed the forecast cone for five days.',
    'The tropical wave that became Hurricane Zelda was first tracked by satellite; Hurricane Zelda gained a name once winds passed 39 mph.',
  ];
  met.forEach((t, i) => add(`zelda-met-${i + 1}`, t));
  const prep = [
    'Before Hurricane Zelda made landfall on August 27, Governor Amelia Hask ordered the evacuation of coastal Port Marlow and opened forty shelters across Dane County.',
    'Evacuation orders covered 300,000 residents of Port Marlow and Dane County; shelters filled as traffic jammed the evacuation routes ahead of Hurricane Zelda and its August landfall.',
    'Governor Amelia Hask declared a state of emergency for Dane County and staged utility crews and National Guard units for Zelda.',
    'Schools in Dane County closed and the Port Marlow harbor was shut as shelters and evacuation buses prepared for Zelda.',
  ];
  prep.forEach((t, i) => add(`zelda-prep-${i + 1}`, t));
  const impact = [
    'At landfall on August 27, Hurricane Zelda pushed a storm surge of eleven feet into Port Marlow, flooding the harbor district and destroying 2,400 homes in Dane County.',
    'Power outages from Hurricane Zelda left 900,000 customers in Dane County without electricity; storm surge flooding closed the Port Marlow causeway.',
    'Storm surge and rainfall flooding from Zelda damaged the Port Marlow water plant; insured damage in Dane County reached $4.1 billion.',
    'Eleven people died in Dane County as storm surge from Zelda flooded homes; damage to the Port Marlow harbor was severe.',
  ];
  impact.forEach((t, i) => add(`zelda-impact-${i + 1}`, t));
  const after = [
    'After Hurricane Zelda, President Ruth Calder approved a federal disaster declaration for Dane County, releasing recovery aid to Port Marlow.',
    'Recovery in Port Marlow took months; federal aid and insurance payouts funded rebuilding of homes damaged by Zelda in Dane County.',
    'Governor Amelia Hask created a recovery fund for Dane County after Hurricane Zelda, and volunteers cleared debris from Port Marlow.',
    'The name Zelda was retired after the season; the federal recovery office in Port Marlow closed in 2024 after rebuilding in Dane County.',
  ];
  after.forEach((t, i) => add(`zelda-after-${i + 1}`, t));
  const orlo = [
    'Hurricane Orlo made landfall near Dunmore Bay as a Category 4 hurricane, and damage from the hurricane reached $2 billion.',
    'Evacuations ahead of Hurricane Orlo emptied Dunmore Bay; shelters across Tarrow Parish housed 20,000 people during the hurricane.',
    'Storm surge from Hurricane Orlo flooded Dunmore Bay and caused severe damage to homes in Tarrow Parish.',
    'Hurricane Orlo formed in the Gulf of Tarrow and the hurricane struck Dunmore Bay two days later.',
    'After Hurricane Orlo, federal disaster aid reached Tarrow Parish and recovery of Dunmore Bay took a year.',
  ];
  orlo.forEach((t, i) => add(`orlo-${i + 1}`, t));
  const season = [
    'The 2021 Atlantic hurricane season produced fourteen named storms, of which six became a hurricane.',
    'Hurricane hunters flew more missions than in any hurricane season on record.',
    'Insurers counted hurricane losses across the season at $30 billion.',
    'The hurricane season officially ran from June 1 to November 30.',
    'Forecasters had predicted an above-average hurricane season because of warm sea temperatures.',
    'A late-season hurricane brushed the Verdant Isles in November without landfall.',
  ];
  season.forEach((t, i) => add(`season-${i + 1}`, t));
  const other = [
    'The Velmar general election saw the Progress Party win 84 of 150 seats after a campaign dominated by inflation.',
    'Turnout in the Velmar general election reached 71 percent; the Unity Alliance conceded on election night.',
    'Polls before the Velmar election showed the Progress Party leading by six points among urban voters.',
    'Glass Orchard is the third studio album by the band Mirelle, recorded in Lisbon over six weeks.',
    'Critics praised the production of Glass Orchard; the album debuted at number two on the national chart.',
    'Mirelle toured Europe to promote Glass Orchard, playing thirty concerts in forty days.',
    'The Keswick railway line was extended to the coast in 1911, carrying grain and passengers.',
    'A new bridge over the Keswick river opened in 1998, replacing a ferry service.',
  ];
  other.forEach((t, i) => add(`other-${i + 1}`, t));
  return ps;
}

const facetOf = (id: string): string => id.split('-').slice(0, 2).join('-');
const FACETS = ['zelda-met', 'zelda-prep', 'zelda-impact', 'zelda-after'];
const RUN = '00000000-0000-4000-8000-000000000001';

function setup() {
  const registry = new CorpusRegistry({ builtins: false });
  registry.registerPassages('storms', hurricaneCorpus());
  return { registry, coord: new CorpusCoordinatorEngine(registry, 'storms'), sub: new CorpusSubagentEngine(registry, 'storms') };
}

function searchTask(topic: string, query: string, over: Partial<SearchTask> = {}): SearchTask {
  return {
    kind: 'search',
    taskId: 't.1.a',
    runId: RUN,
    round: 1,
    engine: 'corpus',
    corpus: 'storms',
    subtopicId: 'a',
    query,
    maxFindings: 6,
    knownSourceIds: [],
    context: { objective: `Find evidence about ${query}`, topic, scope: { include: [], exclude: [] }, outputFormat: '', sourceGuidance: '', excerpts: [] },
    ...over,
  };
}

describe('CorpusCoordinatorEngine.plan: the "too narrow" failure', () => {
  it('the first scouting pass sees one facet of four', async () => {
    const { registry } = setup();
    const { index } = await registry.forTopic('storms', 'Hurricane Zelda');
    const profile = topicProfile(index, 'Hurricane Zelda');
    expect(new Set(profile.firstPass.map(facetOf))).toEqual(new Set(['zelda-met']));
    // ...while the scouting evidence (the profile) spans all four facets and no other storm.
    const evidenceFacets = new Set(profile.evidence.map((e) => facetOf(e.id)));
    for (const f of FACETS) expect(evidenceFacets).toContain(f);
    expect(profile.evidence.some((e) => e.id.startsWith('orlo-'))).toBe(false);
  });

  it('with the coverage check, the plan covers all four facets; without it, it does not', async () => {
    const { registry, coord } = setup();
    const { index } = await registry.forTopic('storms', 'Hurricane Zelda');
    const profile = topicProfile(index, 'Hurricane Zelda');
    const reached = (subtopics: Parameters<typeof expectedPassages>[2][]): Set<string> =>
      new Set(subtopics.flatMap((s) => expectedPassages(index, profile, s)).map(facetOf));

    const checked = await coord.plan({ runId: RUN, topic: 'Hurricane Zelda', corpus: 'storms', maxSubtopics: 8, classification: 'breadth', coverageCheck: true });
    for (const f of FACETS) expect(reached(checked.plan.subtopics)).toContain(f);
    expect(checked.plan.coverage?.share).toBeGreaterThanOrEqual(0.8);
    expect(checked.plan.coverage?.passed).toBe(true);
    expect(checked.plan.subtopics.some((s) => s.origin === 'coverage-check')).toBe(true);
    const cov = checked.decisions.find((d) => d.decisionType === 'coverage-check')!;
    expect(cov.level).toBe('L0');
    expect(cov.signals.shareBefore as number).toBeLessThan(cov.signals.share as number);
    expect(checked.decisions.map((d) => d.decisionType)).toEqual(['plan', 'coverage-check']);
    expect(checked.plan.coverage!.maxOverlap).toBeLessThanOrEqual(0.5);

    const unchecked = await coord.plan({ runId: RUN, topic: 'Hurricane Zelda', corpus: 'storms', maxSubtopics: 8, classification: 'breadth', coverageCheck: false });
    expect(reached(unchecked.plan.subtopics).size).toBeLessThan(4);
    expect(unchecked.plan.coverage).toBeUndefined();
    expect(unchecked.decisions.map((d) => d.decisionType)).toEqual(['plan']);
  });

  it('plans to the class the coordinator gives: one subtopic for a straightforward question, no more first facets for depth than breadth', async () => {
    const { coord } = setup();
    const who = await coord.plan({ runId: RUN, topic: 'Who is Governor Amelia Hask?', corpus: 'storms', maxSubtopics: 8, classification: 'straightforward', coverageCheck: true });
    expect(who.plan.classification).toBe('straightforward');
    expect(who.plan.subtopics).toHaveLength(1);
    const plan = (classification: 'breadth' | 'depth') => coord.plan({ runId: RUN, topic: 'Hurricane Zelda', corpus: 'storms', maxSubtopics: 8, classification, coverageCheck: false });
    const depth = await plan('depth');
    const breadth = await plan('breadth');
    expect(depth.plan.classification).toBe('depth');
    expect(breadth.plan.classification).toBe('breadth');
    expect(depth.plan.subtopics.length).toBeLessThanOrEqual(breadth.plan.subtopics.length);
  });
});

describe('CorpusCoordinatorEngine.refine', () => {
  it('targets the gap after a narrow round, and stops when the findings add too little (novelty stop)', async () => {
    const { coord, sub } = setup();
    const topic = 'Hurricane Zelda';
    const { plan } = await coord.plan({ runId: RUN, topic, corpus: 'storms', maxSubtopics: 8, classification: 'breadth', coverageCheck: false });
    const findings: Finding[] = [];
    for (const s of plan.subtopics) findings.push(...(await sub.search(searchTask(topic, s.query, { subtopicId: s.id }), () => undefined)).findings);
    const evidence = (fs: Finding[]): Record<string, number> => fs.reduce<Record<string, number>>((a, f) => ((a[f.subtopicId] = (a[f.subtopicId] ?? 0) + 1), a), {});
    const r1 = await coord.refine({ runId: RUN, topic, corpus: 'storms', plan, round: 1, findings, evidence: evidence(findings), maxNewTasks: 4 });
    expect(r1.newSubtopics.length).toBeGreaterThan(0);
    expect(r1.newSubtopics.length + r1.thinSubtopicIds.length).toBeLessThanOrEqual(4);
    expect(r1.newSubtopics.every((s) => s.origin === 'refinement')).toBe(true);
    expect(r1.decisions[0]!.decisionType).toBe('refinement');
    expect(r1.decisions[0]!.signals.uncoveredShare as number).toBeGreaterThan(0.1);

    // Every on-topic passage already in the ledger: nothing new is worth a task.
    const all: Finding[] = hurricaneCorpus()
      .filter((p) => p.id.startsWith('zelda-'))
      .map((p) => ({ id: `${p.id}~x`, claim: p.text, quote: p.text, sourceId: p.id, subtopicId: 'overview' }));
    const r2 = await coord.refine({ runId: RUN, topic, corpus: 'storms', plan, round: 2, findings: all, evidence: evidence(all), maxNewTasks: 4 });
    expect(r2.newSubtopics).toEqual([]);
    expect(r2.thinSubtopicIds).toEqual([]);
    expect(r2.decisions[0]!.signals.stop).toBe(true);
  });
});

describe('CorpusCoordinatorEngine.forecast', () => {
  it("forecasts the next round: the refinement's gap tasks, and the scouting evidence the ledger misses as passages and as untouched clusters", async () => {
    const { coord, sub } = setup();
    const topic = 'Hurricane Zelda';
    const { plan } = await coord.plan({ runId: RUN, topic, corpus: 'storms', maxSubtopics: 8, classification: 'breadth', coverageCheck: false });
    const findings: Finding[] = (await sub.search(searchTask(topic, plan.subtopics[0]!.query, { subtopicId: plan.subtopics[0]!.id }), () => undefined)).findings;
    const input = { runId: RUN, topic, corpus: 'storms', plan, round: 1, findings, evidence: { [plan.subtopics[0]!.id]: findings.length }, maxNewTasks: 4 };
    const narrow = await coord.forecast(input);
    const refined = await coord.refine(input);
    expect(narrow.gapTasks).toBe(refined.newSubtopics.length + refined.thinSubtopicIds.length);
    expect(narrow.missingEvidence).toBeGreaterThan(0);
    expect(narrow.untouchedClusterShare).toBeGreaterThan(0);

    // Every Zelda passage in the ledger: no gap task, and less missing by both counts (the evidence's one other passage is left).
    const all: Finding[] = hurricaneCorpus()
      .filter((p) => p.id.startsWith('zelda-'))
      .map((p) => ({ id: `${p.id}~x`, claim: p.text, quote: p.text, sourceId: p.id, subtopicId: 'overview' }));
    const done = await coord.forecast({ ...input, round: 2, findings: all, evidence: { overview: all.length } });
    expect(done).toMatchObject({ gapTasks: 0, expectedNewPassages: 0 });
    expect(done.missingEvidence).toBeLessThanOrEqual(1);
    expect(done.untouchedClusterShare).toBeLessThan(narrow.untouchedClusterShare);
  });
});

describe('CorpusCoordinatorEngine.replan', () => {
  it('re-plans from the untouched facets and eras: new ids only, none of the old plan, no thin retries', async () => {
    const { coord, sub } = setup();
    const topic = 'Hurricane Zelda';
    const { plan } = await coord.plan({ runId: RUN, topic, corpus: 'storms', maxSubtopics: 8, classification: 'breadth', coverageCheck: false });
    const first = plan.subtopics.slice(0, 1);
    const findings: Finding[] = (await sub.search(searchTask(topic, first[0]!.query, { subtopicId: first[0]!.id }), () => undefined)).findings;
    const narrow = { ...plan, subtopics: first };
    const r = await coord.replan({ runId: RUN, topic, corpus: 'storms', plan: narrow, round: 2, findings, evidence: { [first[0]!.id]: findings.length }, maxNewTasks: 4 });
    expect(r.newSubtopics.length).toBeGreaterThan(0);
    expect(r.newSubtopics.every((s) => s.id.startsWith('p3-'))).toBe(true);
    expect(r.thinSubtopicIds).toEqual([]);
    expect(r.decisions[0]).toMatchObject({ decisionType: 'replan', signals: { mode: 'replan' } });
    const ledger = new Set(findings.map((f) => f.sourceId));
    expect(r.decisions[0]!.signals.expectedNewPassages as number).toBeGreaterThan(0);
    expect(ledger.size).toBeGreaterThan(0);
  });
});

describe('CorpusSubagentEngine.search', () => {
  it('keeps findings on the topic: another hurricane is left out (precision guard)', async () => {
    const { sub } = setup();
    const progress: string[] = [];
    const r = await sub.search(searchTask('Hurricane Zelda', 'hurricane storm surge damage evacuation shelters'), (u) => void progress.push(u.stage));
    expect(r.findings.length).toBeGreaterThan(2);
    expect(r.findings.every((f) => f.sourceId.startsWith('zelda-'))).toBe(true);
    expect(progress.length).toBeGreaterThan(0);
    // The same query for the other storm finds only that storm.
    const o = await sub.search(searchTask('Hurricane Orlo', 'hurricane storm surge damage evacuation shelters'), () => undefined);
    expect(o.findings.length).toBeGreaterThan(0);
    expect(o.findings.every((f) => f.sourceId.startsWith('orlo-'))).toBe(true);
  });

  it('returns verbatim quotes, full source texts, relevance evidence, and prefers unknown sources', async () => {
    const { sub } = setup();
    const task = searchTask('Hurricane Zelda', 'Hurricane Zelda storm surge flooding', { maxFindings: 3 });
    const r = await sub.search(task, () => undefined);
    const byId = new Map(r.sources.map((s) => [s.id, s]));
    expect(r.findings).toHaveLength(3);
    for (const f of r.findings) {
      expect(byId.get(f.sourceId)!.text).toContain(f.quote);
      expect(byId.get(f.sourceId)!.kind).toBe('passage');
      expect(f.id.startsWith(f.sourceId)).toBe(true);
      expect(f.relevance!.topicTerms.length).toBeGreaterThan(0);
    }
    const again = await sub.search({ ...task, knownSourceIds: r.findings.map((f) => f.sourceId) }, () => undefined);
    expect(again.findings.map((f) => f.sourceId)).not.toEqual(r.findings.map((f) => f.sourceId));
    const known = new Set(r.findings.map((f) => f.sourceId));
    expect(known.has(again.findings[0]!.sourceId)).toBe(false);
  });

  it('leaves a passage to the sibling subtopic whose scope explains it', async () => {
    const { sub } = setup();
    const r = await sub.search(
      searchTask('Hurricane Zelda', 'Hurricane Zelda Port Marlow', { context: { ...searchTask('', 'x').context, topic: 'Hurricane Zelda', scope: { include: ['evacuation'], exclude: ['storm surge', 'federal aid'] } } }),
      () => undefined,
    );
    expect(r.findings.some((f) => f.sourceId.startsWith('zelda-impact'))).toBe(false);
  });
});

describe('CorpusSubagentEngine.search: a survey over dated documents', () => {
  it("the overview reads every era that speaks of the subject, beyond its own ranking's few passages", async () => {
    // Immigration named once a speech from 1800 to 2000, and densely in 2000: the ranking alone reads the densest era.
    const passages: Passage[] = [];
    for (let year = 1800; year <= 2000; year += 5) {
      const title = `${year}, President of ${year}`;
      const times = year === 2000 ? 4 : 1;
      passages.push({ id: `y${year}-1`, title, text: `${'Immigration and the immigrants of our shores. '.repeat(times)}In ${year} the immigration laws were debated.` });
      passages.push({ id: `y${year}-2`, title, text: `The navy and the lighthouses of ${year}.` }, { id: `y${year}-3`, title, text: `The post roads and the mails of ${year}.` });
    }
    const registry = new CorpusRegistry({ builtins: false });
    registry.registerPassages('speeches', passages);
    const sub = new CorpusSubagentEngine(registry, 'speeches');
    const topic = 'How have presidents talked about immigration?';
    const task = { ...searchTask(topic, topic, { subtopicId: OVERVIEW_ID, maxFindings: 3 }), corpus: 'speeches' };
    const r = await sub.search(task, () => undefined);
    const eras = new Set(r.findings.map((f) => Math.floor(Number(f.sourceId.slice(1, 5)) / 20)));
    expect(eras.size).toBeGreaterThanOrEqual(10);
    expect(r.findings.every((f) => /immigra/i.test(f.quote))).toBe(true);
    // Another subtopic, or a comparison, reads only its ranking.
    const other = await sub.search({ ...task, subtopicId: 'a' }, () => undefined);
    expect(other.findings.length).toBeLessThanOrEqual(3);
  });
});

describe('CorpusSubagentEngine.synthesize', () => {
  it('never exceeds maxCitations, cites in every paragraph with verbatim quotes, keeps breadth, skips empty sections', async () => {
    const { coord, sub } = setup();
    const topic = 'Hurricane Zelda';
    const { plan } = await coord.plan({ runId: RUN, topic, corpus: 'storms', maxSubtopics: 8, classification: 'breadth', coverageCheck: true });
    const findings: Finding[] = [];
    const sources = new Map<string, Source>();
    for (const s of plan.subtopics) {
      const r = await sub.search(searchTask(topic, s.query, { subtopicId: s.id, context: { ...searchTask(topic, s.query).context, scope: { include: s.facetTerms, exclude: s.excludeTerms } } }), () => undefined);
      findings.push(...r.findings);
      for (const src of r.sources) sources.set(src.id, src);
    }
    const sections = [...plan.subtopics.map((s) => ({ subtopicId: s.id, title: s.title, findings: findings.filter((f) => f.subtopicId === s.id) })), { subtopicId: 'empty', title: 'Empty', findings: [] }];
    const task: SynthesizeTask = {
      kind: 'synthesize',
      taskId: 't.synth',
      runId: RUN,
      round: 2,
      engine: 'corpus',
      corpus: 'storms',
      sections,
      sources: [...sources.values()],
      maxCitations: 4,
      context: searchTask(topic, 'x').context,
    };
    const out = await sub.synthesize(task, () => undefined);
    const cited = new Set(out.sections.flatMap((s) => s.paragraphs.flatMap((p) => p.citations.map((c) => c.sourceId))));
    expect(cited.size).toBeLessThanOrEqual(4);
    expect(cited.size).toBeGreaterThan(0);
    expect(out.sections.some((s) => s.title === 'Empty')).toBe(false);
    for (const s of out.sections)
      for (const p of s.paragraphs) {
        expect(p.citations.length).toBeGreaterThan(0);
        for (const c of p.citations) expect(sources.get(c.sourceId)!.text).toContain(c.quote!);
      }
    // Breadth: with 4 citations over several sections, at least 3 sections have evidence cited (a quote another
    // section already shows is shown once, so a section can be reached without a paragraph of its own).
    const reached = sections.filter((s) => s.findings.some((f) => cited.has(f.sourceId)));
    expect(reached.length).toBeGreaterThanOrEqual(Math.min(3, sections.filter((s) => s.findings.length).length));
    // A quote that is not in its source is never cited.
    const bad = { ...task, sections: [{ subtopicId: 'x', title: 'X', findings: [{ ...findings[0]!, quote: 'not in the source at all' }] }] };
    expect((await sub.synthesize(bad, () => undefined)).sections).toEqual([]);
  });
});

describe('the plan carries the question’s shape to the spokes', () => {
  const TOPIC = 'Compare Hurricane Zelda and Hurricane Orlo';

  it('a comparative plan names its shape, and each side’s subtopic its side (the schema a queue checks accepts them)', async () => {
    const { coord } = setup();
    const { plan } = await coord.plan({ runId: RUN, topic: TOPIC, corpus: 'storms', maxSubtopics: 8, classification: 'breadth', coverageCheck: true });
    expect(plan.shape).toMatchObject({ kind: 'comparative', sides: ['Hurricane Zelda', 'Hurricane Orlo'] });
    const sides = plan.subtopics.filter((s) => s.side);
    expect(sides.map((s) => s.side!.label)).toEqual(['Hurricane Zelda', 'Hurricane Orlo']);
    expect(sides.every((s) => s.side!.authors === null && s.side!.terms.length > 0)).toBe(true);
    expect(PlanSchema.parse(plan)).toEqual(plan);
    // A plan without them (queued before, or a lead's own) still parses.
    expect(PlanSchema.safeParse({ classification: 'breadth', subtopics: plan.subtopics.map(({ side: _, ...s }) => s) }).success).toBe(true);
  });

  it('the spoke searches the side the task carries, without reading the shape from the topic again', async () => {
    const { coord, sub } = setup();
    const { plan } = await coord.plan({ runId: RUN, topic: TOPIC, corpus: 'storms', maxSubtopics: 8, classification: 'breadth', coverageCheck: true });
    const orlo = plan.subtopics.find((s) => s.side?.label === 'Hurricane Orlo')!;
    // The topic's words alone ask for no comparison: only the plan's shape and side make this a side's search.
    const task = searchTask('Hurricane Orlo', orlo.query, { subtopicId: orlo.id, side: orlo.side!, context: { ...searchTask('Hurricane Orlo', orlo.query).context, shape: plan.shape! } });
    expect(SearchTaskSchema.parse(task)).toEqual(task);
    const messages: string[] = [];
    const r = await sub.search(task, async (u) => void messages.push(u.message));
    expect(messages.some((m) => m.includes(`${orlo.side!.name}'s passages`))).toBe(true);
    expect(r.findings.length).toBeGreaterThan(0);
    expect(r.findings.every((f) => f.sourceId.startsWith('orlo-'))).toBe(true);
  });
});

describe('a comparison with a side the corpus never names', () => {
  it('says so first, then reports what it holds of the other side', async () => {
    const passages: Passage[] = [
      { id: 'js-yaml/README.md#1', title: 'js-yaml/README.md > js-yaml', url: 'file://js-yaml/README.md', text: 'js-yaml is a YAML 1.2 parser and serializer for parsing configuration files in JavaScript.' },
      { id: 'js-yaml/README.md#2', title: 'js-yaml/README.md > Usage', url: 'file://js-yaml/README.md', text: 'Call load() from js-yaml to parse a YAML configuration string into an object.' },
      { id: 'js-yaml/README.md#3', title: 'js-yaml/README.md > Install', url: 'file://js-yaml/README.md', text: 'Install js-yaml with npm to parse YAML configuration.' },
    ];
    const registry = new CorpusRegistry({ builtins: false });
    registry.registerPassages('docs', passages);
    const sub = new CorpusSubagentEngine(registry, 'docs');
    const topic = 'Compare js-yaml and ini for parsing configuration files.';
    const findings: Finding[] = passages.map((p) => ({ id: `${p.id}~q`, claim: p.text, sourceId: p.id, quote: p.text, subtopicId: OVERVIEW_ID, relevance: { score: 1, topicTerms: [], facetTerms: [] } }));
    const task: SynthesizeTask = {
      kind: 'synthesize',
      taskId: 't.write',
      runId: RUN,
      round: 1,
      engine: 'corpus',
      corpus: 'docs',
      sections: [{ subtopicId: OVERVIEW_ID, title: 'Overview', findings }],
      sources: passages.map((p): Source => ({ id: p.id, kind: 'passage', title: p.title, text: p.text, url: p.url! })),
      maxCitations: 25,
      context: { objective: topic, topic, scope: { include: [], exclude: [] }, outputFormat: '', sourceGuidance: '', excerpts: [] },
    };
    const r = await sub.synthesize(task, () => undefined);
    expect(r.summary).toMatch(/^The documents never mention “ini”; what follows is what they say of js-yaml\. /);
  });
});
