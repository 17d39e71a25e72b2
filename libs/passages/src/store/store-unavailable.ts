/**
 * The passage store cannot be reached (refused, unknown host, timed out, dropped) or will not let this process in.
 * The message is for anyone (run errors, webhooks, MCP, REST): never the store's address, user or password;
 * `detail` (what the driver said) is for the server's log only.
 */
export class PassageStoreUnavailableError extends Error {
  override readonly name = 'PassageStoreUnavailableError';
  constructor(readonly detail: string) {
    super('the passage store is unavailable');
  }
}

/**
 * SQLSTATE classes that are the server's state or the connection's, not a query's: 08 connection exception, 28
 * invalid authorization, 3D no such database, 53 insufficient resources, 57 operator intervention (shutting down).
 * https://www.postgresql.org/docs/current/errcodes-appendix.html
 */
const UNAVAILABLE_CLASSES = new Set(['08', '28', '3D', '53', '57']);

/** Socket errors: the server cannot be reached, or the connection broke. */
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'ECONNRESET', 'EHOSTUNREACH', 'ENETUNREACH', 'EPIPE', 'ECONNABORTED']);
/** What node-postgres itself says when a connection ends or cannot be had in time. */
const DRIVER_MESSAGES = /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Connection terminated unexpectedly)/;

/**
 * What a PostgreSQL driver error becomes: unreachable, refused or dropped as PassageStoreUnavailableError; anything
 * else (a query's own fault, a bug) as it is.
 */
export function storeError(err: unknown): unknown {
  if (!(err instanceof Error) || err instanceof PassageStoreUnavailableError) return err;
  const code = (err as { code?: unknown }).code;
  const unavailable =
    (typeof code === 'string' && (NETWORK_CODES.has(code) || (/^[0-9A-Z]{5}$/.test(code) && UNAVAILABLE_CLASSES.has(code.slice(0, 2))))) ||
    DRIVER_MESSAGES.test(err.message);
  return unavailable ? new PassageStoreUnavailableError(`${typeof code === 'string' ? `${code}: ` : ''}${err.message}`) : err;
}
