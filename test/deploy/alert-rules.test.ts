/**
 * The shipped alert rules, checked as Prometheus checks them: `promtool check rules` (syntax, and every expression
 * parses) and `promtool test rules` (each rule on series that must fire it and series that must not). Every metric the
 * rules name is one the coordinator serves at /metrics, or redis_exporter's.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const DIR = join(__dirname, '../../deploy/prometheus');
const SOURCES = ['apps/coordinator/src/metrics/metrics.service.ts'].map((f) => readFileSync(join(__dirname, '../..', f), 'utf8')).join('\n');

describe('deploy/prometheus/alerts.yml', () => {
  it('passes promtool check rules and promtool test rules', async () => {
    const check = await run('promtool', ['check', 'rules', 'alerts.yml'], { cwd: DIR });
    expect(check.stdout).toMatch(/SUCCESS: 10 rules found/);
    // promtool exits non-zero (and execFile rejects) when any test case fails.
    const test = await run('promtool', ['test', 'rules', 'alerts.test.yml'], { cwd: DIR });
    expect(test.stdout).toMatch(/SUCCESS/);
  }, 60_000);

  it('names only metrics the coordinator exports (or redis_exporter)', () => {
    // Expressions only, not the comments around them.
    const rules = readFileSync(join(DIR, 'alerts.yml'), 'utf8').split('\n').filter((l) => !l.trim().startsWith('#')).join('\n');
    const names = new Set([...rules.matchAll(/\b(orrery_[a-z_]+|redis_[a-z_]+)\b/g)].map((m) => m[1]!));
    expect(names.size).toBeGreaterThan(5);
    for (const name of names) {
      if (name.startsWith('redis_')) expect(['redis_memory_used_bytes', 'redis_memory_max_bytes']).toContain(name);
      else expect(SOURCES, name).toContain(`name: '${name}'`);
    }
  });
});
