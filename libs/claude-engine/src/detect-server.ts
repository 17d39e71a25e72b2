import { z } from 'zod';
import type { ServerProfileName } from './server-profile';

/** What a probe of ANTHROPIC_BASE_URL found: the profile to use, and the server it recognised (for the log). */
export interface DetectedServer {
  profile: ServerProfileName;
  server: 'anthropic' | 'ollama' | 'llama.cpp' | 'vllm' | 'unrecognised';
}

/**
 * What local servers that speak the Messages API answer besides it; each read through its schema, so a page that
 * merely answers 200 is not taken for one:
 * - Ollama: `GET /api/version` → `{"version": "0.14.1"}` (docs.ollama.com/api-reference/get-version);
 * - llama.cpp's server: `GET /props` → `{"default_generation_settings": {…}, "total_slots": 1, …}` (tools/server README);
 * - vLLM: `GET /version` → `{"version": "0.11.0"}`, and `GET /v1/models` lists models `owned_by: "vllm"`.
 * Anthropic's API answers none of them (its `/v1/models` items have `type: "model"`, no `owned_by`).
 */
const PROBES: readonly { server: DetectedServer['server']; path: string; schema: z.ZodType }[] = [
  { server: 'ollama', path: '/api/version', schema: z.object({ version: z.string().min(1) }) },
  { server: 'llama.cpp', path: '/props', schema: z.object({ default_generation_settings: z.record(z.string(), z.unknown()), total_slots: z.number().int() }) },
  { server: 'vllm', path: '/version', schema: z.object({ version: z.string().min(1) }) },
  { server: 'vllm', path: '/v1/models', schema: z.object({ object: z.literal('list'), data: z.array(z.object({ id: z.string(), owned_by: z.literal('vllm') })).min(1) }) },
];

const ANTHROPIC_HOSTS = new Set(['api.anthropic.com']);

/**
 * The profile of the server at `baseURL`: Anthropic's own host (or none set) is Claude without a request; any other
 * host is probed, all probes at once, each with a short timeout. A server that answers one as a local server does is
 * `local`; one that answers none (a proxy in front of Anthropic's API) stays `claude`.
 */
export async function detectServer(baseURL: string | undefined, options: { timeoutMs?: number; fetch?: typeof fetch } = {}): Promise<DetectedServer> {
  if (!baseURL || ANTHROPIC_HOSTS.has(new URL(baseURL).hostname)) return { profile: 'claude', server: 'anthropic' };
  const get = options.fetch ?? fetch;
  const base = baseURL.replace(/\/+$/, '');
  const answers = await Promise.all(
    PROBES.map(async (p) => {
      try {
        const res = await get(`${base}${p.path}`, { signal: AbortSignal.timeout(options.timeoutMs ?? 2000), redirect: 'error' });
        return res.ok && p.schema.safeParse(await res.json()).success ? p.server : undefined;
      } catch {
        return undefined;
      }
    }),
  );
  const found = answers.find((a) => a !== undefined);
  return found ? { profile: 'local', server: found } : { profile: 'claude', server: 'unrecognised' };
}
