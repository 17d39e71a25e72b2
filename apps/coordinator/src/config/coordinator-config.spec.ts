import { describe, expect, it } from 'vitest';
import { loadCoordinatorConfig } from './coordinator-config';

describe('INGEST_ROOTS', () => {
  it('has no default: no folder may be read until an operator names one', () => {
    expect(loadCoordinatorConfig({}).INGEST_ROOTS).toEqual([]);
  });

  it('takes absolute folders, normalised, and stops the coordinator at a relative one', () => {
    expect(loadCoordinatorConfig({ INGEST_ROOTS: '/srv/corpora/, /data/../mnt/docs' }).INGEST_ROOTS).toEqual(['/srv/corpora', '/mnt/docs']);
    expect(() => loadCoordinatorConfig({ INGEST_ROOTS: '/srv/corpora,docs' })).toThrow(/INGEST_ROOTS: "docs" is not an absolute path/);
  });
});
