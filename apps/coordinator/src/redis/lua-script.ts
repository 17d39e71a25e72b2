import type { RedisClient } from '@orrery/runtime';

/** A Lua script called with its keys and arguments. */
export type LuaScript = (keys: string[], args: (string | number)[]) => Promise<unknown>;

/**
 * Registers `lua` on the connection under `name`: ioredis then sends EVALSHA (the script's hash)
 * and falls back to EVAL once per server, instead of shipping the whole script on every call.
 */
export function luaScript(redis: RedisClient, name: string, lua: string): LuaScript {
  const commands = redis as unknown as Record<string, (...args: (string | number)[]) => Promise<unknown>>;
  if (typeof commands[name] !== 'function') redis.defineCommand(name, { lua });
  return (keys, args) => commands[name]!(keys.length, ...keys, ...args);
}
