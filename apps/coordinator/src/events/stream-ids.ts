/** Redis Stream entry ids (`<ms>-<seq>`, two unsigned 64-bit numbers), which are also the SSE event ids. */
const STREAM_ID = /^(\d{1,20})-(\d{1,20})$/;
const U64_MAX = 2n ** 64n - 1n;

/** A well-formed stream id, or undefined: anything else would reach Redis as an error. */
export function parseStreamId(id: string): string | undefined {
  const m = STREAM_ID.exec(id.trim());
  if (!m) return undefined;
  return BigInt(m[1]!) <= U64_MAX && BigInt(m[2]!) <= U64_MAX ? `${BigInt(m[1]!)}-${BigInt(m[2]!)}` : undefined;
}

export function compareStreamIds(a: string, b: string): number {
  const [a1, a2] = a.split('-').map(BigInt) as [bigint, bigint];
  const [b1, b2] = b.split('-').map(BigInt) as [bigint, bigint];
  return a1 !== b1 ? (a1 < b1 ? -1 : 1) : a2 === b2 ? 0 : a2 < b2 ? -1 : 1;
}
