import 'reflect-metadata';
import { type INestApplicationContext, Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { SubagentsModule } from './subagents.module';

/** A subagent worker process: an application context with no HTTP, only the task queue. */
export async function startSubagents(
  options: { logger?: false | ('log' | 'error' | 'warn' | 'debug')[]; /** False when the embedding process handles signals itself (the CLI). */ shutdownHooks?: boolean } = {},
): Promise<INestApplicationContext> {
  const app = await NestFactory.createApplicationContext(SubagentsModule, { logger: options.logger ?? ['log', 'error', 'warn'] });
  if (options.shutdownHooks !== false) app.enableShutdownHooks();
  new Logger('Subagents').log(`worker process ${process.pid} ready`);
  return app;
}
