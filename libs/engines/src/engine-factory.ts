import type Anthropic from '@anthropic-ai/sdk';
import { ENGINE_NAMES, type EngineName, type ResolvedEngine } from '@orrery/protocol';
import { AnthropicCoordinatorEngine, AnthropicSubagentEngine, buildAnthropicClient, type AnthropicEngineOptions, priceTable, type PriceTable, SERVER_PROFILES, type ServerProfile, LocalRequestGate, type RequestGate, type DetectedServer, detectServer } from '@orrery/claude-engine';
import { CorpusCoordinatorEngine, CorpusRegistry, CorpusSubagentEngine } from '@orrery/corpus-engine';
import type { Passage } from '@orrery/passages';
import type { CoordinatorEngine, ModelJudge, PassageSearch, SubagentEngine } from '@orrery/engine';
import { readLimitsOf, splitList, type EngineConfig } from './engine-config';
import { SimulatedCoordinatorEngine, SimulatedSubagentEngine, type SimulatedEngineOptions } from './simulated/simulated-engine';

export class EngineUnavailableError extends Error {}

/** Builds each engine once per process and hands out the one a run asked for. */
/** What a process tells its engines about model judging. */
export interface JudgeSwitchReader {
  enabled: () => Promise<boolean>;
  timeoutMs: number;
}

export class EngineFactory {
  private readonly coordinators = new Map<ResolvedEngine, CoordinatorEngine>();
  private readonly subagents = new Map<ResolvedEngine, SubagentEngine>();

  /** Corpora by name: the built-in `sotu` plus `CORPORA`; each is loaded once per process. */
  readonly corpora: CorpusRegistry;

  constructor(readonly config: EngineConfig) {
    this.corpora = new CorpusRegistry({ corpora: config.CORPORA, readLimits: readLimitsOf(config), cacheBytes: config.CORPUS_CACHE_MB * 2 ** 20 });
  }

  /** A configured corpus, or one ingested into the passage store. */
  knowsCorpus(name: string): Promise<boolean> {
    return this.corpora.knows(name);
  }

  corpusNames(): string[] {
    return this.corpora.names();
  }

  /** The configured corpora and those ingested into the passage store. */
  researchableCorpora(): Promise<string[]> {
    return this.corpora.researchable();
  }

  /**
   * The corpus a run of this engine uses when its request names none: DEFAULT_CORPUS for the corpus engine (it needs
   * one), CLAUDE_DEFAULT_CORPUS (unset by default: the web alone) for Claude, none for the simulated engine.
   */
  defaultCorpusFor(engine: ResolvedEngine): string | undefined {
    if (engine === 'corpus') return this.config.DEFAULT_CORPUS;
    // A server without web tools has only the corpus to research.
    if (engine === 'anthropic') return this.config.CLAUDE_DEFAULT_CORPUS ?? (this.serverProfile().serverTools ? undefined : this.config.DEFAULT_CORPUS);
    return undefined;
  }

  private detection?: Promise<DetectedServer>;
  private detected?: DetectedServer;

  /**
   * With ANTHROPIC_PROFILE=auto, asks the server at ANTHROPIC_BASE_URL what it is (once per process; both apps await
   * it before building an engine). An explicit profile is taken as set, without a request.
   */
  detectServerProfile(options?: Parameters<typeof detectServer>[1]): Promise<DetectedServer> {
    const c = this.config;
    this.detection ??= (c.ANTHROPIC_PROFILE === 'auto' ? detectServer(c.ANTHROPIC_BASE_URL, options) : Promise.resolve({ profile: c.ANTHROPIC_PROFILE, server: 'unrecognised' } as const)).then((d) => (this.detected = d));
    return this.detection;
  }

  /**
   * What the server behind ANTHROPIC_BASE_URL supports: ANTHROPIC_PROFILE (or, with `auto`, what detection found;
   * Claude's before it has run), with the per-capability flags over it.
   */
  serverProfile(): ServerProfile {
    const c = this.config;
    const flag = (v: 'on' | 'off' | undefined, profile: boolean) => (v === undefined ? profile : v === 'on');
    const p = SERVER_PROFILES[c.ANTHROPIC_PROFILE === 'auto' ? (this.detected?.profile ?? 'claude') : c.ANTHROPIC_PROFILE];
    return {
      ...p,
      serverTools: flag(c.ANTHROPIC_SERVER_TOOLS, p.serverTools),
      structuredOutput: flag(c.ANTHROPIC_STRUCTURED_OUTPUT, p.structuredOutput),
      promptCaching: flag(c.ANTHROPIC_PROMPT_CACHING, p.promptCaching),
      thinking: flag(c.ANTHROPIC_THINKING, p.thinking),
    };
  }

  /** `auto` means Claude when an API key is set, else the offline corpus engine. */
  resolve(requested?: EngineName): ResolvedEngine {
    const name = requested ?? this.config.ENGINE;
    if (name === 'auto') return this.config.ANTHROPIC_API_KEY ? 'anthropic' : 'corpus';
    if (name === 'anthropic' && !this.config.ANTHROPIC_API_KEY) {
      throw new EngineUnavailableError('engine "anthropic" needs ANTHROPIC_API_KEY; set it, or use engine "corpus" (offline)');
    }
    return name;
  }

  private anthropicClient?: Anthropic;
  private gate?: RequestGate;
  private prices?: PriceTable;

  /**
   * Where this process's Claude requests wait out rate limits: the fleet's gate in a service (both apps set the
   * Redis one at startup), else one of the process's own. Set before the first Claude request; a second call (the CLI
   * hosts both apps) keeps the first.
   */
  useRequestGate(gate: RequestGate): void {
    this.gate ??= gate;
  }

  /**
   * What every Claude engine of this process sends through. It picks the gate at the first request, not when an engine
   * is built: a provider that builds one in its constructor (before the services' startup hooks set the fleet's gate)
   * would otherwise leave the hub's calls outside the fleet's rate limits and breaker.
   */
  private readonly processGate: RequestGate = {
    enter: (signal) => (this.gate ??= new LocalRequestGate()).enter(signal),
    observe: (headers) => this.gate?.observe?.(headers),
  };

  private judgeSwitch?: JudgeSwitchReader;

  /**
   * Whether model judging is on, read before every judgement inside a Claude task (JUDGE and the deployment's switch in
   * Redis). Without it (a process that sets none) research loops judge by their rules and health monitor only.
   */
  useJudgeSwitch(reader: JudgeSwitchReader): void {
    this.judgeSwitch ??= reader;
  }

  /** The one price table: the defaults with ANTHROPIC_PRICES, WEB_SEARCH_PRICE_PER_1K and WEB_FETCH_PRICE_PER_1K. */
  priceTable(): PriceTable {
    const c = this.config;
    this.prices ??= priceTable({
      prices: c.ANTHROPIC_PRICES,
      ...(c.WEB_SEARCH_PRICE_PER_1K !== undefined ? { webSearchPer1k: c.WEB_SEARCH_PRICE_PER_1K } : {}),
      ...(c.WEB_FETCH_PRICE_PER_1K !== undefined ? { webFetchPer1k: c.WEB_FETCH_PRICE_PER_1K } : {}),
    });
    return this.prices;
  }

  /**
   * The Claude engine's options from EngineConfig. One SDK client per process. The corpus client tools get the task's
   * corpus per task: `CorpusRegistry.load` shares one promise per corpus, so each corpus is ingested and indexed once per
   * process, on the first task that names it, and never per task.
   */
  anthropicOptions(): AnthropicEngineOptions {
    const c = this.config;
    if (!c.ANTHROPIC_API_KEY) throw new EngineUnavailableError('engine "anthropic" needs ANTHROPIC_API_KEY');
    this.anthropicClient ??= buildAnthropicClient({
      apiKey: c.ANTHROPIC_API_KEY,
      ...(c.ANTHROPIC_BASE_URL ? { baseURL: c.ANTHROPIC_BASE_URL } : {}),
      timeout: c.ANTHROPIC_TIMEOUT_MS,
    });
    const domains = (allowed: string, blocked: string) => ({
      ...(splitList(allowed).length ? { allowedDomains: splitList(allowed) } : {}),
      ...(splitList(blocked).length ? { blockedDomains: splitList(blocked) } : {}),
    });
    return {
      client: this.anthropicClient,
      profile: this.serverProfile(),
      gate: this.processGate,
      prices: this.priceTable(),
      maxRetries: c.ANTHROPIC_MAX_RETRIES,
      maxRateLimitWaitMs: c.ANTHROPIC_RATE_LIMIT_MAX_WAIT_MS,
      taskTokenEstimate: c.TASK_TOKEN_ESTIMATE,
      maxToolCallsPerTask: c.TASK_MAX_TOOL_CALLS,
      model: c.ANTHROPIC_MODEL,
      subagentModel: c.ANTHROPIC_SUBAGENT_MODEL,
      judgeModel: c.ANTHROPIC_JUDGE_MODEL,
      ...(c.ANTHROPIC_REFUSAL_FALLBACK_MODEL ? { refusalFallbackModel: c.ANTHROPIC_REFUSAL_FALLBACK_MODEL } : {}),
      webSearch: {
        enabled: c.WEB_SEARCH === 'on',
        maxUses: c.WEB_SEARCH_MAX_USES,
        callers: c.WEB_TOOL_CALLERS,
        ...domains(c.WEB_SEARCH_ALLOWED_DOMAINS, c.WEB_SEARCH_BLOCKED_DOMAINS),
      },
      webFetch: {
        enabled: c.WEB_SEARCH === 'on' && c.WEB_FETCH === 'on',
        maxUses: c.WEB_FETCH_MAX_USES,
        ...domains(c.WEB_FETCH_ALLOWED_DOMAINS, c.WEB_FETCH_BLOCKED_DOMAINS),
        ...(c.WEB_FETCH_MAX_CONTENT_TOKENS > 0 ? { maxContentTokens: c.WEB_FETCH_MAX_CONTENT_TOKENS } : {}),
      },
      passagesFor: (corpus, topic) => this.passagesFor(corpus, topic),
      ...(this.judgeSwitch ? { loopJudge: { every: c.LOOP_JUDGE_EVERY, timeoutMs: this.judgeSwitch.timeoutMs, enabled: this.judgeSwitch.enabled } } : {}),
    };
  }

  /**
   * The index of the task's corpus as the Claude engine's corpus tools see it: the corpus's working index for the task's
   * topic (a small corpus whole). A task without a corpus (a web run) gets no corpus tools: the
   * run's corpus was settled when it was created (defaultCorpusFor).
   */
  async passagesFor(corpus: string | undefined, topic: string): Promise<PassageSearch | undefined> {
    if (corpus === undefined) return undefined;
    if (!(await this.corpora.knows(corpus))) {
      throw new EngineUnavailableError(`corpus "${corpus}" is not configured in this process nor in the passage store; known: ${this.corpusNames().join(', ')} (set CORPORA and CORPUS_STORE alike on every process)`);
    }
    return (await this.corpora.forTopic(corpus, topic)).index;
  }

  /** One passage of a known corpus by id (configured or stored). */
  async passage(corpus: string, id: string): Promise<Passage | undefined> {
    return this.corpora.passage(corpus, id);
  }

  private simulatedOptions(): SimulatedEngineOptions {
    return {
      latencyMs: this.config.SIMULATED_LATENCY_MS,
      subtopics: this.config.SIMULATED_SUBTOPICS,
      rounds: this.config.SIMULATED_ROUNDS,
      findingsPerTask: 3,
      emptyEvery: this.config.SIMULATED_EMPTY_EVERY,
      dry: this.config.SIMULATED_DRY,
    };
  }

  /**
   * The deployment's judge model for callers outside a run (the MCP judge): the first engine this process can build
   * that declares one, in the order the protocol lists them; none without.
   */
  judgeModel(): ModelJudge | undefined {
    for (const name of ENGINE_NAMES) {
      if (this.available(name)) {
        const judge = this.coordinator(name).capabilities.judge;
        if (judge) return judge;
      }
    }
    return undefined;
  }

  private available(name: ResolvedEngine): boolean {
    try {
      this.resolve(name);
      return true;
    } catch {
      return false;
    }
  }

  coordinator(name: ResolvedEngine): CoordinatorEngine {
    let engine = this.coordinators.get(name);
    if (!engine) {
      engine = this.build(name, 'coordinator') as CoordinatorEngine;
      this.coordinators.set(name, engine);
    }
    return engine;
  }

  subagent(name: ResolvedEngine): SubagentEngine {
    let engine = this.subagents.get(name);
    if (!engine) {
      engine = this.build(name, 'subagent') as SubagentEngine;
      this.subagents.set(name, engine);
    }
    return engine;
  }

  private build(name: ResolvedEngine, side: 'coordinator' | 'subagent'): CoordinatorEngine | SubagentEngine {
    switch (name) {
      case 'simulated':
        return side === 'coordinator' ? new SimulatedCoordinatorEngine(this.simulatedOptions()) : new SimulatedSubagentEngine(this.simulatedOptions());
      case 'corpus':
        return side === 'coordinator'
          ? new CorpusCoordinatorEngine(this.corpora, this.config.DEFAULT_CORPUS)
          : new CorpusSubagentEngine(this.corpora, this.config.DEFAULT_CORPUS);
      case 'anthropic':
        // The fallback is the corpus engine, which works on the run's own corpus (the task's `corpus`).
        return side === 'coordinator'
          ? new AnthropicCoordinatorEngine({ ...this.anthropicOptions(), fallback: this.coordinator('corpus') })
          : new AnthropicSubagentEngine({ ...this.anthropicOptions(), fallback: this.subagent('corpus') });
      default:
        throw new EngineUnavailableError(`engine "${name}" is not available in this build`);
    }
  }
}

let processFactory: EngineFactory | undefined;

/**
 * One factory per process, so a process that hosts both the coordinator and workers (the CLI)
 * loads and indexes each corpus once. Its server profile is known before any engine is built: with
 * ANTHROPIC_PROFILE=auto the server is asked first, and `log` hears what answered.
 */
export async function processEngineFactory(config: () => EngineConfig, log: (line: string) => void): Promise<EngineFactory> {
  processFactory ??= new EngineFactory(config());
  const engines = processFactory;
  const found = await engines.detectServerProfile();
  if (engines.config.ANTHROPIC_PROFILE === 'auto' && engines.config.ANTHROPIC_BASE_URL) log(`ANTHROPIC_BASE_URL answers as ${found.server}: server profile ${found.profile}`);
  return engines;
}
