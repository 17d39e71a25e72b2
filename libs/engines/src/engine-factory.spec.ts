import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AnthropicCoordinatorEngine, AnthropicSubagentEngine, DEFAULT_COORDINATOR_MODEL, DEFAULT_JUDGE_MODEL, DEFAULT_SUBAGENT_MODEL } from '@orrery/claude-engine';
import { loadEngineConfig } from './engine-config';
import { EngineFactory, EngineUnavailableError } from './engine-factory';
import { SqlitePassageStore } from '@orrery/passages';

const factory = (env: Record<string, string> = {}) => new EngineFactory(loadEngineConfig({ ...env }));

describe('engine config', () => {
  it('takes its model defaults from the Claude engine (one source of truth)', () => {
    const c = loadEngineConfig({});
    expect(c.ANTHROPIC_MODEL).toBe(DEFAULT_COORDINATOR_MODEL);
    expect(c.ANTHROPIC_SUBAGENT_MODEL).toBe(DEFAULT_SUBAGENT_MODEL);
    expect(c.ANTHROPIC_JUDGE_MODEL).toBe(DEFAULT_JUDGE_MODEL);
    expect(c.WEB_SEARCH).toBe('on');
    expect(c.WEB_FETCH).toBe('on');
  });

  it('rejects allowed and blocked domains together, a bad base URL, and names the variable', () => {
    expect(() => loadEngineConfig({ WEB_SEARCH_ALLOWED_DOMAINS: 'a.org', WEB_SEARCH_BLOCKED_DOMAINS: 'b.org' })).toThrow(/WEB_SEARCH_ALLOWED_DOMAINS/);
    expect(() => loadEngineConfig({ WEB_FETCH_ALLOWED_DOMAINS: 'a.org', WEB_FETCH_BLOCKED_DOMAINS: 'b.org' })).toThrow(/WEB_FETCH_ALLOWED_DOMAINS/);
    expect(() => loadEngineConfig({ ANTHROPIC_BASE_URL: 'not a url' })).toThrow(/ANTHROPIC_BASE_URL/);
    expect(() => loadEngineConfig({ WEB_SEARCH: 'maybe' })).toThrow(/WEB_SEARCH/);
  });

  it('treats an empty variable as unset', () => {
    expect(loadEngineConfig({ ANTHROPIC_API_KEY: '' }).ANTHROPIC_API_KEY).toBeUndefined();
  });
});

describe('EngineFactory', () => {
  it('auto means anthropic iff an API key is set', () => {
    expect(factory().resolve()).toBe('corpus');
    expect(factory({ ANTHROPIC_API_KEY: 'k' }).resolve()).toBe('anthropic');
    expect(factory({ ANTHROPIC_API_KEY: 'k' }).resolve('corpus')).toBe('corpus');
    expect(() => factory().resolve('anthropic')).toThrow(EngineUnavailableError);
  });

  it('builds the Claude engines once, from the configuration, with the corpus engine as fallback', () => {
    const f = factory({
      ANTHROPIC_API_KEY: 'k',
      ANTHROPIC_BASE_URL: 'http://127.0.0.1:9',
      ANTHROPIC_MODEL: 'm-hub',
      ANTHROPIC_SUBAGENT_MODEL: 'm-spoke',
      ANTHROPIC_MAX_RETRIES: '1',
      WEB_SEARCH_MAX_USES: '2',
      WEB_SEARCH_BLOCKED_DOMAINS: 'a.org, b.org',
      WEB_FETCH: 'on',
      ANTHROPIC_PRICES: '{"m-spoke": {"input": 2, "output": 8}}',
      TASK_TOKEN_ESTIMATE: '10000',
    });
    const hub = f.coordinator('anthropic');
    const spoke = f.subagent('anthropic');
    expect(hub).toBeInstanceOf(AnthropicCoordinatorEngine);
    expect(spoke).toBeInstanceOf(AnthropicSubagentEngine);
    expect(f.coordinator('anthropic')).toBe(hub);
    expect(f.subagent('anthropic')).toBe(spoke);
    const o = f.anthropicOptions();
    expect(o.model).toBe('m-hub');
    expect(o.subagentModel).toBe('m-spoke');
    expect(o.webSearch).toEqual({ enabled: true, maxUses: 2, callers: 'direct', blockedDomains: ['a.org', 'b.org'] });
    expect(o.webFetch?.enabled).toBe(true);
    // The engine retries (MessagesApi), not the SDK, which would retry 429s blind to the fleet.
    const client = o.client as { maxRetries: number; baseURL: string };
    expect(client.maxRetries).toBe(0);
    expect(o.maxRetries).toBe(1);
    expect(client.baseURL).toBe('http://127.0.0.1:9');
    // One price table, with the env's overrides; the hub reserves the configured tokens per task, priced.
    expect(o.prices?.models['m-spoke']).toEqual({ input: 2, output: 8, cacheWrite5m: 2.5, cacheWrite1h: 4, cacheRead: 0.2 });
    expect(hub.taskEstimate).toEqual({ tokens: 10_000, costUsd: expect.closeTo(8000 * 2e-6 + 2000 * 8e-6 + 0.02, 6) });
    expect((hub as unknown as { fallback: unknown }).fallback).toBe(f.coordinator('corpus'));
    expect((spoke as unknown as { fallback: unknown }).fallback).toBe(f.subagent('corpus'));
  });

  it("sends through the gate a service sets at startup, even from an engine built before it (the hub's calls join the fleet's breaker)", async () => {
    const f = factory({ ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: 'http://127.0.0.1:9' });
    // A provider that asks for the judge in its constructor builds the hub's Claude engine before any startup hook runs.
    const judge = f.judgeModel();
    const entered: string[] = [];
    f.useRequestGate({
      enter: async () => {
        entered.push('fleet');
        throw new Error('held at the fleet gate');
      },
    });
    const input = { goal: 'g', round: 1, lastActions: [], yield: { newFindings: 0, newSources: 0 }, stateSummary: '', signalHistory: { pivots: 0 } };
    await expect(judge!.judgeVerdict(input)).rejects.toThrow();
    expect(entered).toEqual(['fleet']);
  });

  it('refuses price overrides that are not a price table, naming the variable', () => {
    expect(() => loadEngineConfig({ ANTHROPIC_PRICES: '{"claude-x": {"input": -1, "output": 1}}' })).toThrow(/ANTHROPIC_PRICES/);
    expect(() => loadEngineConfig({ ANTHROPIC_PRICES: 'cheap' })).toThrow(/ANTHROPIC_PRICES: not JSON/);
  });

  it('a Claude run without a corpus uses CLAUDE_DEFAULT_CORPUS, unset by default; a corpus run uses DEFAULT_CORPUS', () => {
    expect(factory({ ANTHROPIC_API_KEY: 'k', DEFAULT_CORPUS: 'mem' }).defaultCorpusFor('anthropic')).toBeUndefined();
    expect(factory({ ANTHROPIC_API_KEY: 'k', DEFAULT_CORPUS: 'mem' }).defaultCorpusFor('corpus')).toBe('mem');
    expect(factory({ ANTHROPIC_API_KEY: 'k', CLAUDE_DEFAULT_CORPUS: 'notes' }).defaultCorpusFor('anthropic')).toBe('notes');
    expect(factory({}).defaultCorpusFor('simulated')).toBeUndefined();
  });

  it("gives the corpus tools the task's corpus, loading each corpus once per process", async () => {
    const f = factory({ ANTHROPIC_API_KEY: 'k', DEFAULT_CORPUS: 'mem' });
    f.corpora.registerPassages('mem', [{ id: 'mem-1', title: 'Kestrels', text: 'The kestrel hovers over the river meadow before it dives.' }]);
    f.corpora.registerPassages('other', [{ id: 'oth-1', title: 'Herons', text: 'The heron waits in the shallows of the river.' }]);
    const a = await f.passagesFor('mem', 'kestrels');
    expect(a?.search('kestrel', 3).map((h) => h.id)).toEqual(['mem-1']);
    expect(await f.passagesFor('mem', 'kestrels')).toBe(a);
    // A task without a corpus (a web run) gets no corpus tools, whatever DEFAULT_CORPUS says.
    expect(await f.passagesFor(undefined, 'kestrels')).toBeUndefined();
    expect((await f.passagesFor('other', 'herons'))?.get('oth-1')?.title).toBe('Herons');
    await expect(f.passagesFor('nope', 'anything')).rejects.toThrow(EngineUnavailableError);
  });

  it('gives the corpus tools a corpus ingested into the passage store: the working index of the task\'s topic', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'orrery-factory-store-'));
    const before = process.env.CORPUS_STORE;
    process.env.CORPUS_STORE = join(dir, 'passages.sqlite');
    const store = new SqlitePassageStore(process.env.CORPUS_STORE);
    try {
      await store.upsert('notes', [
        { id: 'n-1', document: 'notes/birds', title: 'Birds', text: 'The kestrel hovers over the river meadow before it dives.', contentHash: 'h1' },
        { id: 'n-2', document: 'notes/boats', title: 'Boats', text: 'The schooner needs tar for its hull.', contentHash: 'h2' },
      ]);
      const f = factory({ ANTHROPIC_API_KEY: 'k' });
      expect(await f.knowsCorpus('notes')).toBe(true);
      const p = await f.passagesFor('notes', 'kestrel');
      expect(p?.search('kestrel', 3).map((h) => h.id)).toEqual(['n-1']);
      expect(p?.get('n-1')?.title).toBe('Birds');
    } finally {
      await store.close();
      if (before === undefined) delete process.env.CORPUS_STORE;
      else process.env.CORPUS_STORE = before;
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses the Claude engine without a key', () => {
    expect(() => factory().subagent('anthropic')).toThrow(EngineUnavailableError);
  });
});
