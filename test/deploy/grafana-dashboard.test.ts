/**
 * The shipped Grafana dashboard: valid JSON with the sections an operator looks for, and every query naming only
 * metrics the coordinator serves at /metrics (or redis_exporter's), so no panel is silently empty.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(__dirname, '../..');
const dashboard = JSON.parse(readFileSync(join(ROOT, 'deploy/grafana/orrery.json'), 'utf8')) as {
  uid: string;
  panels: Array<{ type: string; title: string; targets?: Array<{ expr: string }> }>;
};
const exported = readFileSync(join(ROOT, 'apps/coordinator/src/metrics/metrics.service.ts'), 'utf8');

describe('deploy/grafana/orrery.json', () => {
  it('has a row for runs, tasks, judge, costs, queues and the breaker', () => {
    expect(dashboard.uid).toBe('orrery');
    const rows = dashboard.panels.filter((p) => p.type === 'row').map((p) => p.title);
    expect(rows.sort()).toEqual(['Breaker', 'Costs', 'Judge', 'Queues', 'Runs', 'Tasks']);
  });

  it('queries only exported metrics', () => {
    const exprs = dashboard.panels.flatMap((p) => (p.targets ?? []).map((t) => t.expr));
    expect(exprs.length).toBeGreaterThan(20);
    for (const expr of exprs) {
      for (const [, name] of expr.matchAll(/\b((?:orrery|redis)_[a-z_]+?)(?:_bucket|_sum|_count)?\b(?=[{[)\s]|$)/g)) {
        if (name!.startsWith('redis_')) expect(['redis_memory_used_bytes', 'redis_memory_max_bytes']).toContain(name);
        else expect(exported, `${name} in ${expr}`).toContain(`name: '${name}'`);
      }
    }
  });
});
