import 'reflect-metadata';
import { type INestApplicationContext, Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { loadSubagentConfig } from './config/subagent-config';
import { SubagentsModule } from './subagents.module';
import { useJsonLogs } from '@orrery/runtime';

/** A subagent worker process: an application context with no HTTP, only the task queue. */
export async function startSubagents(
  options: { logger?: false | ('log' | 'error' | 'warn' | 'debug')[]; /** False when the embedding process handles signals itself (the CLI). */ shutdownHooks?: boolean } = {},
): Promise<INestApplicationContext> {
  // An embedding process (the CLI) picks its levels; a worker process logs JSON through pino, at LOG_LEVEL.
  // A bad setting stops the start with its reason before any module connects to anything.
  loadSubagentConfig();
  const app = await NestFactory.createApplicationContext(SubagentsModule, options.logger !== undefined ? { logger: options.logger } : { bufferLogs: true });
  if (options.logger === undefined) useJsonLogs(app);
  if (options.shutdownHooks !== false) app.enableShutdownHooks();
  new Logger('Subagents').log(`worker process ${process.pid} ready`);
  return app;
}
