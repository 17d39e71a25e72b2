import type { EngineName, ResolvedEngine } from '@orrery/protocol';
import { CorpusCoordinatorEngine, CorpusRegistry, CorpusSubagentEngine } from './corpus';
import type { CoordinatorEngine, SubagentEngine } from './engine';
import type { EngineConfig } from './engine-config';
import { SimulatedCoordinatorEngine, SimulatedSubagentEngine, type SimulatedEngineOptions } from './simulated';

export class EngineUnavailableError extends Error {}

/** Builds each engine once per process and hands out the one a run asked for. */
export class EngineFactory {
  private readonly coordinators = new Map<ResolvedEngine, CoordinatorEngine>();
  private readonly subagents = new Map<ResolvedEngine, SubagentEngine>();

  /** Corpora by name: the built-in `sotu` plus `CORPORA`; each is loaded once per process. */
  readonly corpora: CorpusRegistry;

  constructor(readonly config: EngineConfig) {
    this.corpora = new CorpusRegistry({ corpora: config.CORPORA });
  }

  knowsCorpus(name: string): boolean {
    return this.corpora.has(name);
  }

  corpusNames(): string[] {
    return this.corpora.names();
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

  private simulatedOptions(): SimulatedEngineOptions {
    return {
      latencyMs: this.config.SIMULATED_LATENCY_MS,
      subtopics: this.config.SIMULATED_SUBTOPICS,
      rounds: this.config.SIMULATED_ROUNDS,
      findingsPerTask: 3,
    };
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
      default:
        throw new EngineUnavailableError(`engine "${name}" is not available in this build`);
    }
  }
}

let processFactory: EngineFactory | undefined;

/**
 * One factory per process, so a process that hosts both the coordinator and workers (the CLI)
 * loads and indexes each corpus once.
 */
export function processEngineFactory(config: () => EngineConfig): EngineFactory {
  processFactory ??= new EngineFactory(config());
  return processFactory;
}
