import { CLAUDE_PROFILE, LOCAL_PROFILE } from '@orrery/claude-engine';
import { describe, expect, it } from 'vitest';
import { loadEngineConfig } from './engine-config';
import { EngineFactory } from './engine-factory';

// The factory picks the Claude engine's server profile from the configuration (moved from claude-engine's
// server-profile.spec: the Claude engine does not know the factory above it).
describe('server profile chosen by the factory', () => {
  it('ANTHROPIC_PROFILE=local with per-capability flags; a local run defaults to DEFAULT_CORPUS', () => {
    const f = (env: Record<string, string>) => new EngineFactory(loadEngineConfig({ ANTHROPIC_API_KEY: 'k', DEFAULT_CORPUS: 'mem', ...env }));
    expect(f({}).serverProfile()).toEqual(CLAUDE_PROFILE);
    expect(f({ ANTHROPIC_PROFILE: 'local' }).serverProfile()).toEqual(LOCAL_PROFILE);
    expect(f({ ANTHROPIC_PROFILE: 'local', ANTHROPIC_THINKING: 'on' }).serverProfile()).toEqual({ ...LOCAL_PROFILE, thinking: true });
    expect(f({ ANTHROPIC_STRUCTURED_OUTPUT: 'off' }).serverProfile()).toEqual({ ...CLAUDE_PROFILE, structuredOutput: false });
    expect(f({}).defaultCorpusFor('anthropic')).toBeUndefined();
    expect(f({ ANTHROPIC_PROFILE: 'local' }).defaultCorpusFor('anthropic')).toBe('mem');
    expect(f({ ANTHROPIC_PROFILE: 'local', CLAUDE_DEFAULT_CORPUS: 'notes' }).defaultCorpusFor('anthropic')).toBe('notes');
    expect(() => loadEngineConfig({ ANTHROPIC_PROFILE: 'ollama' })).toThrow(/ANTHROPIC_PROFILE/);
    expect(loadEngineConfig({}).ANTHROPIC_PROFILE).toBe('auto');
  });

  it('a task is reserved at the server’s price: nothing on a local server, the table’s price on Claude', () => {
    const f = (env: Record<string, string>) => new EngineFactory(loadEngineConfig({ ANTHROPIC_API_KEY: 'k', ANTHROPIC_SUBAGENT_MODEL: 'qwen3:8b', ...env }));
    const local = f({ ANTHROPIC_PROFILE: 'local' }).coordinator('anthropic').taskEstimate;
    expect(local.tokens).toBeGreaterThan(0);
    expect(local.costUsd).toBe(0);
    // The same unknown model id on Claude's profile reserves at the dearest known price.
    expect(f({}).coordinator('anthropic').taskEstimate.costUsd).toBeGreaterThan(0);
  });
});
