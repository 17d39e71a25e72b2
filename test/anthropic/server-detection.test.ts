/**
 * ANTHROPIC_PROFILE=auto: the server at ANTHROPIC_BASE_URL is asked what it is. The fake answers the routes Ollama,
 * llama.cpp's server and vLLM have besides the Messages API, as each shapes them; in `anthropic` mode it answers none.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { detectServer } from '../../libs/claude-engine/src/detect-server';
import { CLAUDE_PROFILE, LOCAL_PROFILE } from '../../libs/claude-engine/src/server-profile';
import { loadEngineConfig } from '../../libs/engines/src/engine-config';
import { EngineFactory } from '../../libs/engines/src/engine-factory';
import { FakeMessagesApi } from '../support/fake-messages-api';

describe('server profile detection', () => {
  const started: FakeMessagesApi[] = [];
  const fake = async (opts: Parameters<typeof FakeMessagesApi.start>[0]) => {
    const api = await FakeMessagesApi.start(opts);
    started.push(api);
    return api;
  };
  afterAll(async () => {
    for (const api of started) await api.close();
  });

  it.each(['ollama', 'llama.cpp', 'vllm'] as const)('a %s server is local', async (kind) => {
    const api = await fake({ server: 'local', localServer: kind });
    expect(await detectServer(api.baseURL)).toEqual({ profile: 'local', server: kind });
    expect(api.requests).toEqual([]);
    expect(api.probes.some((p) => p.status === 200)).toBe(true);
  });

  it('a server that answers none of the probes (Anthropic’s API, a proxy in front of it) is Claude', async () => {
    const api = await fake({ server: 'anthropic' });
    expect(await detectServer(api.baseURL)).toEqual({ profile: 'claude', server: 'unrecognised' });
  });

  it('Anthropic’s own host, or no base URL, is Claude without a request', async () => {
    const never = (() => {
      throw new Error('no request expected');
    }) as unknown as typeof fetch;
    expect(await detectServer(undefined, { fetch: never })).toEqual({ profile: 'claude', server: 'anthropic' });
    expect(await detectServer('https://api.anthropic.com', { fetch: never })).toEqual({ profile: 'claude', server: 'anthropic' });
  });

  it('an answer that does not validate is not taken for a server (a 200 page, a version that is no string)', async () => {
    const answer = (body: unknown) => (async () => new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json' } })) as unknown as typeof fetch;
    expect((await detectServer('http://127.0.0.1:1', { fetch: answer({ version: 3 }) })).profile).toBe('claude');
    expect((await detectServer('http://127.0.0.1:1', { fetch: answer({ object: 'list', data: [{ id: 'm', owned_by: 'openai' }] }) })).profile).toBe('claude');
    const html = (async () => new Response('<html>hello</html>', { status: 200 })) as unknown as typeof fetch;
    expect((await detectServer('http://127.0.0.1:1', { fetch: html })).profile).toBe('claude');
  });

  it('the factory: auto takes what the server answers; an explicit ANTHROPIC_PROFILE wins and asks nothing', async () => {
    const api = await fake({ server: 'local', localServer: 'vllm' });
    const factory = (env: Record<string, string>) => new EngineFactory(loadEngineConfig({ ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: api.baseURL, ...env }));
    const auto = factory({});
    expect(await auto.detectServerProfile()).toEqual({ profile: 'local', server: 'vllm' });
    expect(auto.serverProfile()).toEqual(LOCAL_PROFILE);
    const before = api.probes.length;
    const explicit = factory({ ANTHROPIC_PROFILE: 'claude' });
    await explicit.detectServerProfile();
    expect(explicit.serverProfile()).toEqual(CLAUDE_PROFILE);
    expect(api.probes.length).toBe(before);
  });
});
