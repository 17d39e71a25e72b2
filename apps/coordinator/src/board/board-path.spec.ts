import { describe, expect, it } from 'vitest';
import { boardRoute, canonicalBoardPath, encodeBoardPath } from './board-path';

describe('canonicalBoardPath', () => {
  it('gives every spelling Express would route alike one path', () => {
    for (const spelling of ['/api/redis/stats', '/api/redis/stats/', '/api//redis/stats', '//api/redis/stats', '/api/%72edis/stats', '/api/redis/stats//']) {
      expect(canonicalBoardPath(spelling), spelling).toBe('/api/redis/stats');
    }
    expect(boardRoute(canonicalBoardPath('/API/Redis/Stats')!)).toBe('/api/redis/stats');
    expect(canonicalBoardPath('')).toBe('/');
    expect(canonicalBoardPath('/')).toBe('/');
  });

  it('refuses what no route could mean: bad escapes, encoded separators, control characters, dot segments', () => {
    for (const path of ['/api/%zz', '/api/queues/a%2Fb', '/api/queues/a%5Cb', '/api/queues/%00', '/api/queues/%0a', '/api/queues/..', '/api/queues/%2e%2e/x', '/./api']) {
      expect(canonicalBoardPath(path), path).toBeUndefined();
    }
  });

  it('keeps letter case for the route it forwards, re-encoded', () => {
    expect(canonicalBoardPath('/static/js/Main.JS')).toBe('/static/js/Main.JS');
    expect(encodeBoardPath(canonicalBoardPath('/queue/a%20b')!)).toBe('/queue/a%20b');
  });
});
