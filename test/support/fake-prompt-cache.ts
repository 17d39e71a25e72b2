/**
 * How the fake Messages API counts prompt caching, after the prompt caching docs
 * (platform.claude.com/docs/en/build-with-claude/prompt-caching):
 * - the prompt is rendered tools → system → messages, and a breakpoint caches the prefix up to and including its block;
 * - breakpoints are the blocks carrying `cache_control`, plus, with a top-level `cache_control` (automatic caching),
 *   the last cacheable block of the request;
 * - a prefix shorter than the model's minimum cacheable length is neither written nor read, silently;
 * - a read finds the longest cached prefix ending at a breakpoint or at most 20 blocks before one (the lookback);
 * - nothing after the last breakpoint is ever read or written;
 * - entries live 5 minutes, refreshed by each read, and belong to one model.
 * `usage.input_tokens` then counts only what was neither read nor written (the Usage type in the SDK).
 */
import { createHash } from 'node:crypto';

/* eslint-disable @typescript-eslint/no-explicit-any */
type Json = any;

/**
 * Minimum cacheable prompt length by model-id prefix (longest match wins). From the prompt caching docs' table:
 * 512 for Opus 5, Fable 5 and Mythos 5; 1,024 for Sonnet 5, Sonnet 4.x, Opus 4.8, 4.1 and 4; 2,048 for Opus 4.7 and
 * Haiku 3.x; 4,096 for Opus 4.6, Opus 4.5 and Haiku 4.5. The 5.5 models were not in the table this was read from:
 * they take their family's 5.x figure, and Haiku 5.5 the Haiku 4.5 one (the larger of the Haiku figures).
 */
export const MIN_CACHEABLE_TOKENS: Record<string, number> = {
  'claude-opus-5': 512,
  'claude-fable-5': 512,
  'claude-mythos-5': 512,
  'claude-sonnet-5': 1024,
  'claude-sonnet-4': 1024,
  'claude-opus-4-8': 1024,
  'claude-opus-4-1': 1024,
  'claude-opus-4-0': 1024,
  'claude-opus-4-7': 2048,
  'claude-opus-4-6': 4096,
  'claude-opus-4-5': 4096,
  'claude-haiku-4-5': 4096,
  'claude-haiku-5': 4096,
  'claude-haiku-3': 2048,
};
const DEFAULT_MIN = 4096;

export function minCacheableTokens(model: string): number {
  const key = Object.keys(MIN_CACHEABLE_TOKENS)
    .filter((k) => model.startsWith(k))
    .sort((a, b) => b.length - a.length)[0];
  return key ? MIN_CACHEABLE_TOKENS[key]! : DEFAULT_MIN;
}

/** The fake's tokenizer: one token per 4 characters of a block's JSON (cache_control excluded). */
export const tokensOf = (value: unknown): number => Math.max(1, Math.ceil(JSON.stringify(value).length / 4));

const LOOKBACK_BLOCKS = 20;
const TTL_MS = 5 * 60_000;

const withoutCacheControl = (b: Json): Json => {
  if (!b || typeof b !== 'object' || !('cache_control' in b)) return b;
  const { cache_control: _dropped, ...rest } = b;
  return rest;
};

/** The request as the cache sees it: its blocks in render order, and which of them are breakpoints. */
export function renderBlocks(body: Json): { blocks: Json[]; breakpoints: number[] } {
  const blocks: Json[] = [];
  const breakpoints: number[] = [];
  const add = (b: Json, role?: string): void => {
    if (b?.cache_control) breakpoints.push(blocks.length);
    blocks.push(role ? { role, block: withoutCacheControl(b) } : withoutCacheControl(b));
  };
  for (const t of body.tools ?? []) add(t);
  if (typeof body.system === 'string') add({ type: 'text', text: body.system });
  else for (const b of body.system ?? []) add(b);
  for (const m of body.messages ?? []) {
    const content = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content;
    for (const b of content) add(b, m.role);
  }
  if (body.cache_control && blocks.length > 0 && !breakpoints.includes(blocks.length - 1)) breakpoints.push(blocks.length - 1);
  return { blocks, breakpoints: breakpoints.sort((a, b) => a - b) };
}

export interface CacheUsage {
  /** Every input token of the request. */
  total: number;
  read: number;
  written: number;
}

export class FakePromptCache {
  private readonly entries = new Map<string, number>();

  clear(): void {
    this.entries.clear();
  }

  /** Counts one request and updates the cache as the API would. */
  account(body: Json, now = Date.now()): CacheUsage {
    const { blocks, breakpoints } = renderBlocks(body);
    const model = String(body.model);
    const min = minCacheableTokens(model);
    // Prefix hashes and token counts, block by block.
    const hashes: string[] = [];
    const sizes: number[] = [];
    const h = createHash('sha256').update(model);
    let size = 0;
    for (const b of blocks) {
      h.update(JSON.stringify(b));
      hashes.push(h.copy().digest('hex'));
      size += tokensOf(b);
      sizes.push(size);
    }
    const total = size;
    const live = (key: string) => {
      const exp = this.entries.get(key);
      return exp !== undefined && exp > now;
    };
    let readEnd = -1;
    for (const bp of breakpoints) {
      for (let j = bp; j >= Math.max(0, bp - LOOKBACK_BLOCKS); j--) {
        if (j > readEnd && sizes[j]! >= min && live(hashes[j]!)) {
          readEnd = j;
          break;
        }
      }
    }
    if (readEnd >= 0) this.entries.set(hashes[readEnd]!, now + TTL_MS);
    const read = readEnd >= 0 ? sizes[readEnd]! : 0;
    let written = 0;
    const last = breakpoints.at(-1);
    if (last !== undefined && last > readEnd && sizes[last]! >= min) {
      written = sizes[last]! - read;
      for (const bp of breakpoints) if (bp > readEnd && sizes[bp]! >= min) this.entries.set(hashes[bp]!, now + TTL_MS);
    }
    return { total, read, written };
  }
}
