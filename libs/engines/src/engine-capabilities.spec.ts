import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, sourceFiles } from '../../../test/support/source-files';
import { loadEngineConfig } from './engine-config';
import { EngineFactory } from './engine-factory';

const root = REPO_ROOT;

describe('engine ports declare what an engine can do', () => {
  it('the corpus, simulated and Claude engines declare their capabilities', () => {
    const engines = new EngineFactory(loadEngineConfig({ ANTHROPIC_API_KEY: 'test-key' }));
    expect(engines.coordinator('corpus').capabilities).toEqual({ usesCorpus: true, findingsPerTask: 6 });
    expect(engines.coordinator('simulated').capabilities).toEqual({ usesCorpus: false, findingsPerTask: 6 });
    const claude = engines.coordinator('anthropic').capabilities;
    expect(claude).toMatchObject({ usesCorpus: true, fallback: 'corpus', findingsPerTask: 12 });
    expect(typeof claude.judge?.judgeVerdict).toBe('function');
    expect(engines.judgeModel()).toBe(claude.judge);
    expect(new EngineFactory(loadEngineConfig({})).judgeModel()).toBeUndefined();
  });

  it('no caller outside the engines names an adapter or branches on an engine name', () => {
    // A comparison with an engine's name, a factory call naming one, an adapter's class, or a duck-typed judge.
    const branch = /[!=]==?\s*'(simulated|corpus|anthropic)'|\.(coordinator|subagent)\(\s*'(simulated|corpus|anthropic)'\s*\)|\bAnthropic[A-Z]\w*|\b(Corpus|Simulated)(Coordinator|Subagent)Engine\b|typeof [^;]*\.judgeVerdict/;
    // The benches that measure the corpus engine itself build it by name; the apps never do.
    const callers = sourceFiles(join(root, 'apps'))
      .flatMap((p) =>
        readFileSync(p, 'utf8')
          .split('\n')
          .flatMap((line, i) => (branch.test(line) ? [`${relative(root, p)}:${i + 1}: ${line.trim()}`] : [])),
      );
    expect(callers).toEqual([]);
  });
});
