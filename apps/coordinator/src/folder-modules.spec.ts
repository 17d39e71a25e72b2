import { readFileSync } from 'node:fs';
import { relative, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sourceFiles } from '../../../test/support/source-files';

/** Each folder's Nest module, by its path below this one. */
const modules = sourceFiles(__dirname)
  .filter((f) => f.endsWith('.module.ts') && relative(__dirname, f).includes(sep))
  .map((f) => ({ path: relative(__dirname, f), text: readFileSync(f, 'utf8') }));

describe("the hub's Nest modules", () => {
  it("provide their own folder's classes, and take another folder's through its module", () => {
    const foreign = modules.flatMap(({ path, text }) =>
      [...text.matchAll(/from '(\.\.\/[^']*)'/g)].map(([, spec]) => spec!).filter((spec) => !/^\.\.\/([a-z-]+)\/\1\.module$/.test(spec) && spec !== '../config/coordinator-config').map((spec) => `${path}: ${spec}`),
    );
    expect(foreign).toEqual([]);
  });

  it('are global only for what every folder needs whatever it does: the config and the Redis connection', () => {
    expect(modules.filter(({ text }) => text.includes('@Global()')).map(({ path }) => path).sort()).toEqual(['config/config.module.ts', 'redis/redis.module.ts']);
  });
});
