/**
 * Local community detection on a similarity graph: personalized PageRank from seed nodes, then a
 * conductance sweep cut (Andersen, Chung & Lang, 2006). The community is the prefix of nodes, ordered
 * by PageRank per unit of degree, whose boundary is thinnest relative to its volume: where the walk
 * from the seeds stops finding well-connected nodes. Pure: the graph is given as a neighbour function.
 */

export interface CommunityOptions {
  /** Hops explored from the seeds. */
  depth: number;
  /** Largest local graph. */
  maxNodes: number;
  /** Restart probability of the walk. */
  alpha: number;
  iterations: number;
  /** The sweep never cuts before this many nodes... */
  minSize: number;
  /** ...nor after this many. */
  maxSize: number;
  /** Added to a cut's conductance per node, as a share of maxSize: prefers the tighter of two similar cuts. */
  sizePenalty: number;
}

export const DEFAULT_COMMUNITY: CommunityOptions = { depth: 3, maxNodes: 800, alpha: 0.15, iterations: 40, minSize: 5, maxSize: 40, sizePenalty: 0.2 };

export interface CommunityNode {
  id: string;
  /** PageRank per unit of volume (the sweep order). */
  rank: number;
}

export interface Community {
  /** Members in sweep order, most central first. */
  members: CommunityNode[];
  /** Conductance of the chosen cut (0 = no edge leaves it). */
  conductance: number;
  /** Nodes explored. */
  explored: number;
}

export type NeighborFn = (id: string) => readonly { id: string; score: number }[];

/** The groups `ids` form over the `neighbors` edges that stay among them (union-find): each id's group root. */
export function linkedGroups(ids: ReadonlySet<string>, neighbors: NeighborFn): (id: string) => string {
  const parent = new Map([...ids].map((id) => [id, id]));
  const find = (x: string): string => {
    while (parent.get(x) !== x) x = parent.get(x)!;
    return x;
  };
  for (const id of ids) for (const n of neighbors(id)) if (ids.has(n.id)) parent.set(find(id), find(n.id));
  return find;
}

/**
 * The community around `seeds` (weighted restart distribution) in the graph given by `neighbors`
 * (directed k-nearest neighbours with similarity weights; symmetrized inside the explored set).
 */
export function localCommunity(seeds: readonly { id: string; weight: number }[], neighbors: NeighborFn, options: CommunityOptions = DEFAULT_COMMUNITY): Community {
  if (seeds.length === 0) return { members: [], conductance: 1, explored: 0 };
  const out = new Map<string, readonly { id: string; score: number }[]>();
  const seen = new Set(seeds.map((s) => s.id));
  let frontier = [...seen];
  for (let d = 0; d <= options.depth && frontier.length; d++) {
    const next: string[] = [];
    for (const id of frontier) {
      const nb = neighbors(id);
      out.set(id, nb);
      if (d < options.depth)
        for (const n of nb)
          if (!seen.has(n.id) && seen.size < options.maxNodes) {
            seen.add(n.id);
            next.push(n.id);
          }
    }
    frontier = next;
  }
  for (const id of seen) if (!out.has(id)) out.set(id, neighbors(id));

  // Symmetrize inside the explored set; edges that leave it still count in a node's volume.
  const adj = new Map<string, Map<string, number>>([...out.keys()].map((id) => [id, new Map()]));
  for (const [u, nb] of out)
    for (const n of nb) {
      const b = adj.get(n.id);
      if (!b || n.id === u) continue;
      const a = adj.get(u)!;
      a.set(n.id, Math.max(a.get(n.id) ?? 0, n.score));
      b.set(u, Math.max(b.get(u) ?? 0, n.score));
    }
  const vol = new Map<string, number>();
  for (const [u, nb] of out) {
    let v = 0;
    for (const w of adj.get(u)!.values()) v += w;
    for (const n of nb) if (!adj.has(n.id)) v += n.score;
    vol.set(u, v);
  }

  const restart = new Map<string, number>();
  const total = seeds.reduce((s, x) => s + x.weight, 0) || 1;
  for (const s of seeds) restart.set(s.id, (restart.get(s.id) ?? 0) + s.weight / total);
  let pr = new Map(restart);
  for (let it = 0; it < options.iterations; it++) {
    const next = new Map<string, number>();
    for (const [u, x] of pr) {
      const dv = vol.get(u) || 1;
      for (const [v, w] of adj.get(u)!) next.set(v, (next.get(v) ?? 0) + ((1 - options.alpha) * x * w) / dv);
    }
    for (const [k, v] of restart) next.set(k, (next.get(k) ?? 0) + options.alpha * v);
    pr = next;
  }

  const order = [...pr.entries()]
    .map(([id, x]) => ({ id, rank: x / (vol.get(id) || 1) }))
    .sort((a, b) => b.rank - a.rank || a.id.localeCompare(b.id));
  const inside = new Set<string>();
  let totalVol = 0;
  for (const v of vol.values()) totalVol += v;
  let volS = 0;
  let cut = 0;
  let best = { phi: Infinity, objective: Infinity, n: Math.min(order.length, options.minSize) };
  for (let i = 0; i < Math.min(order.length, options.maxSize); i++) {
    const u = order[i]!.id;
    inside.add(u);
    volS += vol.get(u)!;
    let internal = 0;
    for (const [v, w] of adj.get(u)!) if (inside.has(v) && v !== u) internal += w;
    cut += vol.get(u)! - 2 * internal;
    const smaller = Math.min(volS, totalVol - volS);
    const phi = smaller > 0 ? cut / smaller : 1;
    const objective = phi + (options.sizePenalty * (i + 1)) / options.maxSize;
    if (i + 1 >= options.minSize && objective < best.objective) best = { phi, objective, n: i + 1 };
  }
  return { members: order.slice(0, best.n), conductance: Number.isFinite(best.phi) ? best.phi : 1, explored: out.size };
}

export interface AttachOptions {
  /** A group joins when its similarity to the community is at least this multiple of its similarity elsewhere. */
  ratio: number;
  /** No group larger than this share of the community joins (a whole other document is not a fringe). */
  maxShare: number;
}

/**
 * Fringe groups a sweep cut leaves out: a document's passages on one theme (a film's plot, a person's
 * private life) are each other's nearest neighbours and only loosely tied to the rest, so the thinnest
 * cut can fall between them and the core. The candidates are the non-members next to the community;
 * their connected groups (over nearest-neighbour edges) join when their edges that leave the group go
 * mostly into the community. A neighbouring document's passages have most of theirs in their own
 * document, which lies beyond the candidates, so its group stays out.
 */
export function attachFringe(members: ReadonlySet<string>, neighbors: NeighborFn, options: AttachOptions): string[] {
  const candidates = new Set<string>();
  for (const m of members) for (const n of neighbors(m)) if (!members.has(n.id)) candidates.add(n.id);
  const find = linkedGroups(candidates, neighbors);
  const groups = new Map<string, string[]>();
  for (const c of candidates) {
    const root = find(c);
    groups.set(root, [...(groups.get(root) ?? []), c]);
  }
  const joined: string[] = [];
  for (const group of groups.values()) {
    if (group.length > options.maxShare * members.size) continue;
    const inGroup = new Set(group);
    let toCommunity = 0;
    let elsewhere = 0;
    for (const id of group)
      for (const n of neighbors(id)) {
        if (members.has(n.id)) toCommunity += n.score;
        else if (!inGroup.has(n.id)) elsewhere += n.score;
      }
    if (toCommunity > 0 && toCommunity >= options.ratio * elsewhere) joined.push(...group);
  }
  return joined.sort();
}

/** The whole graph split into clusters: each node's cluster, and each cluster's nodes. */
export interface Partition {
  clusterOf(id: string): number | undefined;
  membersOf(cluster: number): readonly string[];
}

/**
 * Passages of the clusters of a global partition that lie mostly inside the community: from every cluster
 * of which at least `minShare` (and two passages) is in, the passages whose nearest neighbour is a member.
 * A document's section the local sweep cut off (weakly tied to the seeds, but tied to its document more
 * than to anything else) sits in such a cluster next to a member; another document's passages that the
 * partition lumped in have their nearest neighbour in their own document.
 */
export function completeFromPartition(members: ReadonlySet<string>, partition: Partition, minShare: number, neighbors: NeighborFn): string[] {
  const inside = new Map<number, number>();
  for (const id of members) {
    const c = partition.clusterOf(id);
    if (c !== undefined) inside.set(c, (inside.get(c) ?? 0) + 1);
  }
  const joined: string[] = [];
  for (const [c, k] of inside) {
    const all = partition.membersOf(c);
    if (k < 2 || k / all.length < minShare) continue;
    for (const id of all) if (!members.has(id) && members.has(neighbors(id)[0]?.id ?? '')) joined.push(id);
  }
  return joined.sort();
}
