import { z } from 'zod';
import { logFields } from './log-context';

export const LogLevelSchema = z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']);
export type LogLevel = z.infer<typeof LogLevelSchema>;

/** LOG_LEVEL (default info), refused with the accepted values when it is not one of them. */
export function logLevelFromEnv(env: NodeJS.ProcessEnv = process.env): LogLevel {
  const parsed = LogLevelSchema.safeParse((env.LOG_LEVEL ?? 'info').toLowerCase());
  if (!parsed.success) throw new Error(`LOG_LEVEL: "${env.LOG_LEVEL}" is not one of ${LogLevelSchema.options.join(', ')}`);
  return parsed.data;
}

/** pino's options for one process: JSON lines with the service's name, ISO times, and the run/job/trace ids. */
export function pinoOptions(service: string) {
  return {
    level: logLevelFromEnv(),
    base: { service, pid: process.pid },
    timestamp: () => `,"time":"${new Date().toISOString()}"`,
    formatters: { level: (label: string) => ({ level: label }) },
    mixin: logFields,
  };
}
