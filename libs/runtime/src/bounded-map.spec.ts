import { describe, expect, it } from 'vitest';
import { BoundedMap } from './bounded-map';

describe('BoundedMap', () => {
  it('drops the oldest entries past its limit', () => {
    const m = new BoundedMap<string, number>(2);
    m.set('a', 1).set('b', 2).set('c', 3);
    expect([...m.keys()]).toEqual(['b', 'c']);
    m.delete('b');
    m.set('d', 4);
    expect([...m.entries()]).toEqual([['c', 3], ['d', 4]]);
  });
});
