import type { SpendPhase, TokenUsage, UsageLine } from '@orrery/protocol';

/** Nothing consumed. */
export const emptyUsage = (): TokenUsage => ({
  inputTokens: 0,
  outputTokens: 0,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  webSearchRequests: 0,
  webFetchRequests: 0,
  costUsd: 0,
});

/** Adds `u` into `into` (mutating it); returns `into`. */
export function addUsage(into: TokenUsage, u: TokenUsage | undefined | null): TokenUsage {
  if (!u) return into;
  into.inputTokens += u.inputTokens;
  into.outputTokens += u.outputTokens;
  into.cacheReadTokens += u.cacheReadTokens;
  into.cacheWriteTokens += u.cacheWriteTokens;
  into.webSearchRequests += u.webSearchRequests ?? 0;
  into.webFetchRequests += u.webFetchRequests ?? 0;
  if (u.thinkingTokens) into.thinkingTokens = (into.thinkingTokens ?? 0) + u.thinkingTokens;
  into.costUsd = roundUsd(into.costUsd + (u.costUsd ?? 0));
  if (u.lines?.length) into.lines = mergeLines(into.lines ?? [], u.lines);
  return into;
}

/** Lines summed per (phase, model), as new records. */
function mergeLines(into: readonly UsageLine[], add: readonly UsageLine[]): UsageLine[] {
  const out = into.map((l) => ({ ...l, cost: { ...l.cost } }));
  for (const l of add) {
    const same = out.find((o) => o.phase === l.phase && o.model === l.model);
    if (!same) {
      out.push({ ...l, cost: { ...l.cost } });
      continue;
    }
    for (const k of ['inputTokens', 'outputTokens', 'cacheReadTokens', 'cacheWriteTokens', 'webSearchRequests', 'webFetchRequests'] as const) same[k] += l[k];
    for (const k of Object.keys(same.cost) as (keyof UsageLine['cost'])[]) same.cost[k] = roundUsd(same.cost[k] + l.cost[k]);
    same.costUsd = roundUsd(same.costUsd + l.costUsd);
    same.uncachedUsd = roundUsd(same.uncachedUsd + l.uncachedUsd);
  }
  return out;
}

/** `u` with its lines that no step has claimed yet put down to `phase` (a new record; lines already tagged keep theirs). */
export function inPhase<U extends TokenUsage | undefined | null>(u: U, phase: SpendPhase): U {
  if (!u?.lines) return u;
  return { ...u, lines: mergeLines([], u.lines.map((l) => ({ ...l, phase: l.phase ?? phase }))) };
}

/** a + b, as a new record. */
export const sumUsage = (a: TokenUsage, b: TokenUsage): TokenUsage => addUsage(addUsage(emptyUsage(), a), b);

/** Every token the model processed (what token budgets count): input, output, cache reads and cache writes. */
export const totalTokens = (u: TokenUsage): number => u.inputTokens + u.outputTokens + u.cacheReadTokens + u.cacheWriteTokens;

/** Dollars to a micro-dollar, so sums stay exact enough and JSON stays short. */
export const roundUsd = (x: number): number => Math.round(x * 1e6) / 1e6;

/** Input tokens of every kind: fresh input, cache reads and cache writes. */
export const allInputTokens = (u: TokenUsage): number => u.inputTokens + u.cacheReadTokens + u.cacheWriteTokens;

/** One line for people: "$0.0421: 12,345 tokens in (61% read from cache), 2,100 out, 7 web searches". */
export function describeUsage(u: TokenUsage): string {
  const input = allInputTokens(u);
  const n = (x: number) => x.toLocaleString('en-US');
  const cached = input > 0 ? ` (${Math.round((u.cacheReadTokens / input) * 100)}% read from cache)` : '';
  const tools = [u.webSearchRequests ? `${n(u.webSearchRequests)} web searches` : '', u.webFetchRequests ? `${n(u.webFetchRequests)} web fetches` : ''].filter(Boolean);
  // A record from before cost was counted has no dollars: it reads as zero.
  return [`$${(u.costUsd ?? 0).toFixed(4)}: ${n(input)} tokens in${cached}`, `${n(u.outputTokens)} out`, ...tools].join(', ');
}
