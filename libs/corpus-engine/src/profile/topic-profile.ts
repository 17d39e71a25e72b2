import type { CorpusIndex } from '../index/corpus-index';
import { eraPassages, spreadOverTime } from '../index/eras';
import { corpusPartition } from './corpus-partition';
import { type AttachOptions, attachFringe, completeFromPartition, DEFAULT_COMMUNITY, linkedGroups, localCommunity, type CommunityOptions } from './local-community';
import { pruneSiblingDocuments } from './sibling-documents';
import { analyzeTerms } from '@orrery/language';

export interface TopicProfileOptions {
  /** Seed passages taken from the topic's own BM25 ranking. */
  seeds: number;
  /** Size of the first scouting pass (what a naive planner would see). */
  firstPass: number;
  /** A seed must match this share of the topic's IDF mass. */
  seedMassShare: number;
  /** Seed candidates considered; the seeds are the most relevant coherent group among them. */
  seedCandidates: number;
  /** Terms kept in the centroid. */
  centroidTerms: number;
  /** Topic terms enter the centroid at (idf / max idf)^power of its top weight (0 = all at full weight). */
  topicTermPower: number;
  /** Candidates scored against the centroid. */
  candidates: number;
  /** Largest scouting evidence kept. */
  maxEvidence: number;
  /** In a dated corpus, each era that discusses the topic keeps at least this many of its best passages. */
  perEra: number;
  /** Neighbours per passage in the similarity graph (community membership). */
  graphNeighbors: number;
  /** Membership by the seeds' local community (personalized PageRank + conductance sweep) in the similarity graph. */
  community: CommunityOptions;
  /** Fringe groups of passages that join the community after its cut. */
  fringe: AttachOptions;
  /**
   * After sibling pruning, from each cluster of a corpus-wide partition (Louvain, `resolution`) of which at
   * least `minShare` is in the community, the passages whose nearest neighbour is a member join. The partition
   * needs every passage's neighbours, so a corpus of more than `maxCorpus` passages goes without it (its cost
   * grows with the corpus while what it adds, sections the local cut left out, does not), and so does a
   * working index of part of a corpus.
   */
  partition: { resolution: number; minShare: number; maxCorpus: number };
  /** A community needs a graph much larger than itself: smaller corpora use propagation. */
  communityMinCorpus: number;
  /** A cut above this conductance is no boundary (a theme spread over many documents): use propagation. */
  maxConductance: number;
  /**
   * Propagation, where there is no community: a centroid threshold (this share of the seeds' median cosine,
   * and at least the absolute cosine), then label propagation over the nearest-neighbour graph.
   */
  propagation: PropagationOptions;
}

export interface PropagationOptions {
  relativeThreshold: number;
  absoluteThreshold: number;
  /** Propagation rounds. */
  iterations: number;
  /** Neighbours per passage. */
  neighbors: number;
  /** Share of (similarity-weighted) neighbours that must be on-topic. */
  neighborShare: number;
  /** Candidates below this share of the seed median cosine are never considered. */
  poolThreshold: number;
  /** Above this share of the seed median cosine, half the neighbour share suffices. */
  highThreshold: number;
}

export const DEFAULT_TOPIC_PROFILE: TopicProfileOptions = {
  seeds: 10,
  firstPass: 8,
  seedMassShare: 0.5,
  seedCandidates: 15,
  centroidTerms: 60,
  topicTermPower: 2,
  candidates: 250,
  maxEvidence: 60,
  perEra: 3,
  graphNeighbors: 10,
  community: DEFAULT_COMMUNITY,
  fringe: { ratio: 1.5, maxShare: 0.5 },
  partition: { resolution: 2, minShare: 0.5, maxCorpus: 20_000 },
  communityMinCorpus: 400,
  maxConductance: 0.5,
  propagation: { relativeThreshold: 0.55, absoluteThreshold: 0.08, iterations: 2, neighbors: 8, neighborShare: 0.4, poolThreshold: 0.25, highThreshold: 0.8 },
};

export interface TopicEvidence {
  id: string;
  /** Relevance to the topic in [0, 1]: cosine to the topic centroid, lifted for anchor matches. */
  score: number;
  /** Topic terms the passage contains. */
  topicTerms: string[];
}

export interface TopicProfileData {
  terms: string[];
  seeds: string[];
  firstPass: string[];
  evidence: TopicEvidence[];
  centroid: Map<string, number>;
  communityCut: { size: number; conductance: number } | null;
  siblings: { names: string[]; pruned: number };
  members: Map<string, number>;
}

/**
 * What a corpus says a topic is: its distinctive terms, seed passages, an expanded term centroid
 * (Rocchio over the seeds), and the scored on-topic passages (the scouting evidence). Deterministic in
 * (corpus, topic), so the coordinator and every subagent compute the same guard independently.
 */
export class TopicProfile {
  readonly terms: string[];
  readonly seeds: string[];
  /** The first scouting pass: the topic's plain BM25 top-k. */
  readonly firstPass: string[];
  readonly evidence: TopicEvidence[];
  readonly centroid: Map<string, number>;
  /** The local community's cut (community membership only): its size and conductance. */
  communityCut: { size: number; conductance: number } | null = null;
  /** Names of sibling documents ("Batsirai" for "Typhoon Hinnamnor") whose passages were pruned from the community. */
  siblings: { names: string[]; pruned: number } = { names: [], pruned: 0 };
  private readonly byId = new Map<string, TopicEvidence>();
  /** Every accepted passage with its score. */
  private readonly members: Map<string, number>;

  /** What the profile found, as plain data (structured-cloneable): a profile built in another thread crosses as this. */
  data(): TopicProfileData {
    return { terms: this.terms, seeds: this.seeds, firstPass: this.firstPass, evidence: this.evidence, centroid: this.centroid, communityCut: this.communityCut, siblings: this.siblings, members: this.members };
  }

  /** The profile whose `data()` this is, on an index of the same passages, without computing it again. */
  static fromData(index: CorpusIndex, topic: string, options: TopicProfileOptions, data: TopicProfileData): TopicProfile {
    const p = Object.create(TopicProfile.prototype) as TopicProfile;
    Object.assign(p, { index, topic, options, ...data, byId: new Map(data.evidence.map((e) => [e.id, e])) });
    return p;
  }

  constructor(
    readonly index: CorpusIndex,
    readonly topic: string,
    readonly options: TopicProfileOptions = DEFAULT_TOPIC_PROFILE,
  ) {
    this.terms = topicTermsOf(index, topic);
    // A title's trailing qualifier ("Takeoff (rapper)", "Sardar (2022 film)") tells which Takeoff, not what
    // the topic is: a passage that matches only the qualifier ("two rappers") is no seed.
    const qualifier = new Set(qualifierTermsOf(topic));
    const subject = this.terms.filter((t) => !qualifier.has(t));
    const core = new Set(subject.length ? subject : this.terms);
    const topicMass = [...core].reduce((s, t) => s + index.idf(t), 0);
    const ranked = index.searchTerms(this.terms, { limit: Math.max(options.candidates, options.seeds * 4) });
    this.firstPass = ranked.slice(0, options.firstPass).map((r) => r.id);
    const massOf = (matched: string[]): number => matched.reduce((s, t) => s + (core.has(t) ? index.idf(t) : 0), 0);
    // Seeds: passages that match most of the topic's IDF mass (all of it first), then by BM25.
    const share = (r: { matched: string[] }): number => (topicMass ? massOf(r.matched) / topicMass : 0);
    let seeds = ranked
      .filter((r) => share(r) >= options.seedMassShare)
      .map((r, rank) => ({ r, rank, full: share(r) >= 0.999 ? 1 : 0 }))
      .sort((a, b) => b.full - a.full || a.rank - b.rank)
      .map((x) => x.r)
      .slice(0, options.seeds);
    if (seeds.length < 2) seeds = ranked.slice(0, Math.min(options.seeds, 3));
    seeds = this.coherentSeeds(seeds, ranked, share, options);
    this.seeds = seeds.map((s) => s.id);

    // Rocchio centroid: rank-weighted mean of seed vectors, plus the topic's own terms.
    const centroid = this.centroidOf(seeds.map((s, rank) => ({ id: s.id, w: 1 / (1 + rank / 4) })));
    this.centroid = centroid;

    const found = index.size >= options.communityMinCorpus ? this.communityMembers(centroid) : null;
    let members: Map<string, number>;
    if (found && this.communityCut!.conductance <= options.maxConductance) {
      this.siblings = this.pruneSiblings(found);
      if (index.wholeCorpus && index.size <= options.partition.maxCorpus) this.completeClusters(found, centroid, options.partition);
      members = found;
    } else members = this.propagatedMembers(ranked, centroid, options.propagation);
    for (const e of eraPassages(index, this.terms, new Set(members.keys()), (matched) => share({ matched }), options.perEra)) members.set(e.id, e.score);
    this.members = members;
    const termSet = new Set(this.terms);
    this.evidence = spreadOverTime(index, [...members.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])), options.maxEvidence).map(([id, score]) => ({
      id,
      score,
      topicTerms: [...new Set(index.termsOf(id).filter((t) => termSet.has(t)))],
    }));
    for (const e of this.evidence) this.byId.set(e.id, e);
  }

  /**
   * Label propagation over the "more like this" graph: a passage joins when most of its nearest neighbours
   * are on-topic. Passages of one document share rare names, so they are each other's neighbours; a passage
   * about another storm / election has its own document around it instead. A passage naming the whole topic
   * ("Hurricane Zelda") starts as a member and needs half the neighbour share. Relevance: half the cosine
   * relative to the seeds' median, half the neighbour share.
   */
  private propagatedMembers(ranked: readonly { id: string }[], centroid: Map<string, number>, o: PropagationOptions): Map<string, number> {
    const index = this.index;
    const candidates = new Set(ranked.map((r) => r.id));
    for (const r of index.searchTerms([...centroid.keys()], { limit: this.options.candidates, weights: centroid })) candidates.add(r.id);
    const cos = new Map([...candidates].map((id) => [id, index.cosineTo(id, centroid)]));
    const seedScores = this.seeds.map((id) => cos.get(id) ?? 0).sort((a, b) => a - b);
    const median = seedScores[Math.floor(seedScores.length / 2)] ?? 0;
    const threshold = Math.max(o.absoluteThreshold, o.relativeThreshold * median);
    const fullMatch = (id: string): boolean => {
      if (this.terms.length === 0) return false;
      const ts = new Set(index.termsOf(id));
      return this.terms.every((t) => ts.has(t));
    };
    const pool = [...cos.entries()].filter(([id, score]) => score >= o.poolThreshold * median || fullMatch(id));
    let member = new Set([...cos.entries()].filter(([id, score]) => score >= threshold || fullMatch(id)).map(([id]) => id));
    const knn = new Map<string, number>();
    for (let it = 0; it < o.iterations; it++) {
      const next = new Set<string>(this.seeds);
      for (const [id, score] of pool) {
        let inside = 0;
        let total = 0;
        for (const n of index.neighbors(id, o.neighbors)) {
          total += n.score;
          if (member.has(n.id)) inside += n.score;
        }
        const share = total ? inside / total : 0;
        knn.set(id, share);
        const accept = fullMatch(id) ? share >= o.neighborShare / 2 : share >= o.neighborShare || (score >= o.highThreshold * median && share >= o.neighborShare / 2);
        if (accept) next.add(id);
      }
      member = next;
    }
    return new Map([...cos.entries()].filter(([id]) => member.has(id)).map(([id, score]) => [id, Math.min(1, score / (median || 1)) * 0.5 + 0.5 * (knn.get(id) ?? 1)]));
  }

  /**
   * The seeds a profile trusts: among the best-matching candidates, the largest (relevance-weighted)
   * group that hangs together in the similarity graph. A passage that matches the topic's words but sits
   * in another document ("Treat" in one article, "Williams" in another) has no neighbour among the rest.
   */
  private coherentSeeds<T extends { id: string; matched: string[] }>(seeds: T[], ranked: T[], share: (r: T) => number, o: TopicProfileOptions): T[] {
    const pool = [...seeds, ...ranked.filter((r) => share(r) >= o.seedMassShare && !seeds.includes(r))].slice(0, Math.max(o.seedCandidates, seeds.length));
    if (pool.length < 3) return seeds;
    const find = linkedGroups(new Set(pool.map((p) => p.id)), (id) => this.index.neighbors(id, o.graphNeighbors));
    const weight = new Map<string, number>();
    pool.forEach((p, rank) => weight.set(find(p.id), (weight.get(find(p.id)) ?? 0) + 1 / (1 + rank / 4)));
    const best = [...weight.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0]![0];
    const group = pool.filter((p) => find(p.id) === best).slice(0, o.seeds);
    return group.length >= 2 ? group : seeds;
  }

  /** Removes the passages of sibling documents the community swallowed (see `pruneSiblingDocuments`). Mutates `members`. */
  private pruneSiblings(members: Map<string, number>): { names: string[]; pruned: number } {
    return pruneSiblingDocuments({ index: this.index, terms: this.terms, seeds: this.seeds, members, neighbors: this.options.graphNeighbors });
  }

  /**
   * Passages of the corpus partition's clusters that lie mostly inside the community (see
   * `completeFromPartition`) join at the bottom of the ranking, as the fringe does. Mutates `members`.
   */
  private completeClusters(members: Map<string, number>, centroid: Map<string, number>, o: { resolution: number; minShare: number }): void {
    const partition = corpusPartition(this.index, { neighbors: this.options.graphNeighbors, resolution: o.resolution });
    const median = this.seedMedian(centroid);
    for (const id of completeFromPartition(new Set(members.keys()), partition, o.minShare, (x) => this.index.neighbors(x, this.options.graphNeighbors))) members.set(id, this.outerScore(id, centroid, median));
  }

  /** Members by local community: id -> relevance in [0, 1] (graph centrality and centroid cosine, half each). */
  private communityMembers(centroid: Map<string, number>): Map<string, number> {
    const o = this.options;
    const seeds = this.seeds.map((id, rank) => ({ id, weight: 1 / (1 + rank / 4) }));
    const c = localCommunity(seeds, (id) => this.index.neighbors(id, o.graphNeighbors), o.community);
    this.communityCut = { size: c.members.length, conductance: c.conductance };
    const cos = new Map(c.members.map((m) => [m.id, this.index.cosineTo(m.id, centroid)]));
    const median = this.seedMedian(centroid);
    const out = new Map<string, number>();
    const n = c.members.length;
    c.members.forEach((m, i) => out.set(m.id, 0.5 * Math.min(1, cos.get(m.id)! / median) + 0.5 * (1 - i / Math.max(1, n))));
    // The fringe joins at the bottom of the ranking: in by the graph, but not central.
    for (const id of attachFringe(new Set(out.keys()), (x) => this.index.neighbors(x, o.graphNeighbors), o.fringe)) out.set(id, this.outerScore(id, centroid, median));
    for (const id of this.seeds) if (!out.has(id)) out.set(id, 0.5 + 0.5 * Math.min(1, (cos.get(id) ?? 0) / median));
    return out;
  }

  /** The seeds' median cosine to the centroid (1 when there is none): what relevance scores are relative to. */
  private seedMedian(centroid: Map<string, number>): number {
    const seedCos = this.seeds.map((id) => this.index.cosineTo(id, centroid)).sort((a, b) => a - b);
    return seedCos[Math.floor(seedCos.length / 2)] || 1;
  }

  /** Relevance of a passage that joined outside the community's cut: half its relative cosine, below every core member. */
  private outerScore(id: string, centroid: Map<string, number>, median: number): number {
    return 0.5 * Math.min(1, this.index.cosineTo(id, centroid) / median);
  }

  private centroidOf(weighted: { id: string; w: number }[]): Map<string, number> {
    const c = new Map<string, number>();
    for (const { id, w } of weighted) for (const [t, v] of this.index.vector(id)) c.set(t, (c.get(t) ?? 0) + w * v);
    const top = [...c.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, this.options.centroidTerms);
    const centroid = new Map(top);
    // The topic's own terms weigh in by how distinctive they are: "Idalia" fully, "hurricane" much less.
    const maxW = top[0]?.[1] ?? 1;
    const maxIdf = Math.max(...this.terms.map((t) => this.index.idf(t)), 1e-9);
    for (const t of this.terms) centroid.set(t, Math.max(centroid.get(t) ?? 0, maxW * (this.index.idf(t) / maxIdf) ** this.options.topicTermPower));
    return centroid;
  }

  /** The precision guard's verdict for one passage. */
  judge(id: string): TopicEvidence & { onTopic: boolean } {
    const known = this.byId.get(id);
    if (known) return { ...known, onTopic: true };
    const termSet = new Set(this.terms);
    const member = this.members.get(id);
    return {
      id,
      score: member ?? this.index.cosineTo(id, this.centroid),
      topicTerms: [...new Set(this.index.termsOf(id).filter((t) => termSet.has(t)))],
      onTopic: member !== undefined,
    };
  }

  /** Total relevance mass of the scouting evidence. */
  get mass(): number {
    return this.evidence.reduce((s, e) => s + e.score, 0);
  }
}

/** The index terms of a title's trailing parenthetical qualifier: "Takeoff (rapper)" -> ["rapper"]. */
export function qualifierTermsOf(topic: string): string[] {
  const m = /\(([^()]+)\)\s*$/.exec(topic.trim());
  return m && m.index > 0 ? analyzeTerms(m[1]!) : [];
}

/** Words that frame a question ("How have presidents talked about ...?") rather than name its subject. */
const FRAMING = new Set(['talk', 'address', 'discuss', 'say', 'said', 'describ', 'view', 'approach', 'handl', 'deal', 'think', 'mention', 'speak', 'spoke', 'chang', 'evolv', 'differ', 'compar']);
const QUESTION = /^\s*(how|what|why|when|where|which|who|whom|whose|did|do|does|is|are|was|were|has|have|can|could|should|would)\b|\?\s*$/i;

/**
 * A topic's index terms. A title ("Hurricane Idalia") is all subject. A question also holds framing words
 * ("how have ... talked about") and words most passages share (in speeches: "president"); both are
 * dropped while a term remains, so the subject ("immigration") defines the topic. How common a word is counts in
 * the whole corpus, not in a working index of it (whose passages the topic's own words brought). Of a working index,
 * only the words it is about stay (`mostLifted`).
 */
export function topicTermsOf(index: CorpusIndex, topic: string): string[] {
  const terms = analyzeTerms(topic).filter((t) => index.df(t) > 0);
  const all = [...new Set(terms)];
  if (!QUESTION.test(topic)) return all;
  // The subject follows the framing verb: "presidents" is who talks, "immigration" what it is about.
  const verb = terms.findIndex((t) => FRAMING.has(t));
  const object = verb >= 0 ? [...new Set(terms.slice(verb + 1).filter((t) => !FRAMING.has(t)))] : [];
  const subject = object.length ? object : all.filter((t) => !FRAMING.has(t));
  const uncommon = subject.filter((t) => index.share(t) <= COMMON_SHARE);
  const specific = index.wholeCorpus ? uncommon : mostLifted(index, uncommon);
  return specific.length ? specific : subject.length ? subject : all;
}

/** A term in more than this share of the corpus's passages is one most passages share (in speeches: "president"). */
const COMMON_SHARE = 0.1;
/** A working index's topic terms are lifted at least this share of its most lifted term's lift. */
const MIN_LIFT_SHARE = 0.25;

/**
 * The terms a working index is about: how much more often a passage of it holds the term than a passage of the whole
 * corpus does (its lift). The topic's search brought the working index, so the question's other words ("look",
 * "choose") come along at the corpus's own rate, while its subject ("crontab", "openssl") is many times as frequent.
 */
function mostLifted(index: CorpusIndex, terms: readonly string[]): string[] {
  const lift = new Map(terms.map((t) => [t, index.df(t) / index.size / index.share(t)]));
  const top = Math.max(0, ...lift.values());
  return terms.filter((t) => lift.get(t)! >= MIN_LIFT_SHARE * top);
}

const profileCache = new WeakMap<CorpusIndex, WeakMap<TopicProfileOptions, Map<string, TopicProfile>>>();
const PROFILE_CACHE_SIZE = 32;

/**
 * The topic profile for (index, topic, options), memoized per read-only index. A pure function of its inputs,
 * so sharing it between tasks in one process shares no run state.
 */
export function topicProfile(index: CorpusIndex, topic: string, options: TopicProfileOptions = DEFAULT_TOPIC_PROFILE): TopicProfile {
  return cachedProfile(index, topic, options) ?? rememberProfile(index, topic, options, new TopicProfile(index, topic, options));
}

/** The memoized profile, if this process has one. */
export function cachedProfile(index: CorpusIndex, topic: string, options: TopicProfileOptions): TopicProfile | undefined {
  return profileCache.get(index)?.get(options)?.get(profileTopic(topic));
}

/** Memoize a profile built elsewhere (in a thread, `prepareTopicProfile`), so `topicProfile` returns it. */
export function rememberProfile(index: CorpusIndex, topic: string, options: TopicProfileOptions, profile: TopicProfile): TopicProfile {
  let byOptions = profileCache.get(index);
  if (!byOptions) profileCache.set(index, (byOptions = new WeakMap()));
  let byTopic = byOptions.get(options);
  if (!byTopic) byOptions.set(options, (byTopic = new Map()));
  if (byTopic.size >= PROFILE_CACHE_SIZE) byTopic.delete(byTopic.keys().next().value!);
  byTopic.set(profileTopic(topic), profile);
  return profile;
}

/** A topic as profiles are keyed by it, here, in the profile thread's builds and in the store: case and outer spaces do not make another topic. */
export const profileTopic = (topic: string): string => topic.trim().toLowerCase();
