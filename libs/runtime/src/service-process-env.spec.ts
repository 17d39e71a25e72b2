import { describe, expect, it } from 'vitest';
import { SERVICE_PROCESS_DEFAULTS, serviceProcessEnv } from './service-process-env';

describe('a service process’s environment', () => {
  it('caps the heap and the malloc arenas where the launching environment says nothing, and keeps what it says', () => {
    expect(serviceProcessEnv({ PATH: '/bin' })).toEqual({ PATH: '/bin', NODE_OPTIONS: '--max-old-space-size=512 --max-semi-space-size=4', MALLOC_ARENA_MAX: '2' });
    expect(serviceProcessEnv({ NODE_OPTIONS: '--max-old-space-size=2048', MALLOC_ARENA_MAX: '4' })).toEqual({ NODE_OPTIONS: '--max-old-space-size=2048', MALLOC_ARENA_MAX: '4' });
    // An empty value is the operator's choice (uncapped), not a gap to fill.
    expect(serviceProcessEnv({ NODE_OPTIONS: '' }).NODE_OPTIONS).toBe('');
  });

  it('is what the image and docker-compose.yml start processes with', async () => {
    const { readFileSync } = await import('node:fs');
    const { resolve } = await import('node:path');
    const root = resolve(__dirname, '..', '..', '..');
    expect(readFileSync(resolve(root, 'Dockerfile'), 'utf8')).toContain(`ENV MALLOC_ARENA_MAX=${SERVICE_PROCESS_DEFAULTS.MALLOC_ARENA_MAX}`);
    const compose = readFileSync(resolve(root, 'docker-compose.yml'), 'utf8');
    expect(compose.match(new RegExp(`NODE_OPTIONS: \\$\\{NODE_OPTIONS:-${SERVICE_PROCESS_DEFAULTS.NODE_OPTIONS}\\}`, 'g'))).toHaveLength(2);
  });
});
