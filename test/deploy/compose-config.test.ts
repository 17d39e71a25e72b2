/**
 * docker-compose.yml, the observability profile included, validates: Debian's docker-compose (1.29) runs `config`
 * with no engine (.ci/run installs it). The profile's services and the files they mount are there.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../support/test-env';

describe('docker-compose.yml', () => {
  it('validates with the observability profile, which brings the collector, Jaeger, Prometheus and Grafana', () => {
    const out = execFileSync('docker-compose', ['config', '--services'], { cwd: ROOT, env: { ...process.env, COMPOSE_PROFILES: 'observability' }, encoding: 'utf8' });
    expect(out.split('\n').filter(Boolean)).toEqual(expect.arrayContaining(['coordinator', 'subagents', 'redis', 'otel-collector', 'jaeger', 'prometheus', 'grafana']));
    // The full rendering validates every field, not only the service names.
    execFileSync('docker-compose', ['config', '--quiet'], { cwd: ROOT, env: { ...process.env, COMPOSE_PROFILES: 'observability' }, encoding: 'utf8' });
    for (const file of ['deploy/otel/collector.yml', 'deploy/prometheus/prometheus.yml', 'deploy/grafana/provisioning/dashboards/orrery.yml', 'deploy/grafana/provisioning/datasources/orrery.yml']) {
      expect(existsSync(resolve(ROOT, file)), file).toBe(true);
    }
  });
});
