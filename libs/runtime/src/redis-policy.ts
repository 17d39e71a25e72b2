export interface PolicyLogger {
  warn(message: string): void;
}

/**
 * Reads Redis's maxmemory-policy. Anything but `noeviction` lets Redis drop queue and run keys under
 * memory pressure, which loses runs silently: warn, or refuse to start when `strict`.
 * Managed Redis services often forbid CONFIG; then we can only say so.
 */
/** What the check needs of a Redis client (ioredis's Redis and Cluster both qualify). */
export interface ConfigReader {
  config(subcommand: 'GET', parameter: string): Promise<unknown>;
}

export async function checkEvictionPolicy(redis: ConfigReader, strict: boolean, logger: PolicyLogger, timeoutMs = 5000): Promise<string | undefined> {
  let policy: string | undefined;
  try {
    const res = await Promise.race([
      redis.config('GET', 'maxmemory-policy'),
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs).unref()),
    ]);
    policy = Array.isArray(res) && res.length >= 2 ? String(res[1]) : undefined;
  } catch (err) {
    logger.warn(`could not read Redis maxmemory-policy (${(err as Error).message}); make sure it is "noeviction"`);
    return undefined;
  }
  if (policy === undefined) {
    logger.warn('Redis did not report its maxmemory-policy; make sure it is "noeviction"');
    return undefined;
  }
  if (policy !== 'noeviction') {
    const message = `Redis maxmemory-policy is "${policy}": under memory pressure Redis would evict queue and run keys and lose runs; set it to "noeviction"`;
    if (strict) throw new Error(`${message} (STRICT_REDIS=1 refuses to start)`);
    logger.warn(message);
  }
  return policy;
}
