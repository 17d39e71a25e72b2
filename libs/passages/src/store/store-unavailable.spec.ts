import { describe, expect, it } from 'vitest';
import { PassageStoreUnavailableError, storeError } from './store-unavailable';

const withCode = (message: string, code: string) => Object.assign(new Error(message), { code });

describe('storeError', () => {
  it.each([
    ['a refused connection', withCode('connect ECONNREFUSED 10.0.0.5:5432', 'ECONNREFUSED')],
    ['an unknown host', withCode('getaddrinfo ENOTFOUND pg.internal', 'ENOTFOUND')],
    ['a refused login', withCode('password authentication failed for user "orrery"', '28P01')],
    ['a database that does not exist', withCode('database "orrery_db" does not exist', '3D000')],
    ['a server shutting down', withCode('terminating connection due to administrator command', '57P01')],
    ['a dropped connection', new Error('Connection terminated unexpectedly')],
    ['a pool that cannot connect in time', new Error('timeout exceeded when trying to connect')],
  ])('reads %s as "the passage store is unavailable", the driver\'s words kept as detail only', (_name, err) => {
    const out = storeError(err);
    expect(out).toBeInstanceOf(PassageStoreUnavailableError);
    expect((out as Error).message).toBe('the passage store is unavailable');
    expect((out as PassageStoreUnavailableError).detail).toContain(err.message);
  });

  it.each([
    ['a query\'s syntax error', withCode('syntax error at or near "SELEC"', '42601')],
    ['a constraint', withCode('duplicate key value violates unique constraint', '23505')],
    ['a bug', new TypeError('cannot read properties of undefined')],
  ])('leaves %s as it is', (_name, err) => {
    expect(storeError(err)).toBe(err);
  });
});
