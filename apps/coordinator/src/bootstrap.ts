import 'reflect-metadata';
import { type INestApplication, Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { COORDINATOR_QUEUE, INGEST_QUEUE, ReportSchema, ResearchRequestSchema, RunEventSchema, RunSchema, SUBAGENT_QUEUE, WEBHOOK_QUEUE } from '@orrery/protocol';
import type { Queue } from 'bullmq';
import { getQueueToken } from '@nestjs/bullmq';
import type { Server } from 'node:http';
import { z } from 'zod';
import type { NextFunction, Request, Response } from 'express';
import { loopbackHostOnly, sameSiteJsonWrites } from './api/browser-requests.middleware';
import { HttpErrorsFilter } from './api/http-errors.filter';
import { jsonBodies, refuseUnwantedBodies } from './api/request-bodies';
import { securityHeaders } from './api/security-headers';
import { ApiKeys } from './auth/api-keys';
import { AuthMiddleware } from './auth/auth.middleware';
import { BOARD_PATH } from './auth/board-mount';
import { bullBoardRouter } from './board/bull-board';
import { LargeBodiesMiddleware } from './quotas/large-bodies.middleware';
import { RequestRateMiddleware } from './quotas/request-rate.middleware';
import { COORDINATOR_CONFIG, type CoordinatorConfig, loadCoordinatorConfig } from './config/coordinator-config';
import { CoordinatorModule } from './coordinator.module';
import { mountMcp } from './mcp/mcp-route';
import { mountWebPage } from './web/web-page';
import { requestSpans } from './telemetry/request-spans';
import { describeRedisLocation, logLevelFromEnv, tracingActive, useJsonLogs } from '@orrery/runtime';
import { EngineFactory } from '@orrery/engines';
import { loadStoreLocation, type StoreLocation } from '@orrery/passages';

export interface StartedCoordinator {
  app: INestApplication;
  url: string;
}

/** Builds and starts the coordinator's HTTP app. Port 0 picks a free port. */
export async function startCoordinator(
  overrides: { port?: number; logger?: false | ('log' | 'error' | 'warn' | 'debug')[]; /** False when the embedding process handles signals itself (the CLI). */ shutdownHooks?: boolean } = {},
): Promise<StartedCoordinator> {
  // A bad setting stops the start with its reason before any module connects to anything.
  loadCoordinatorConfig();
  const app = await NestFactory.create<NestExpressApplication>(CoordinatorModule, {
    // An embedding process (the CLI) picks its levels; a service process logs JSON through pino, at LOG_LEVEL.
    ...(overrides.logger !== undefined ? { logger: overrides.logger } : { bufferLogs: true }),
    bodyParser: false,
    // Open SSE streams must not hold a shutdown up: clients reconnect with Last-Event-ID.
    forceCloseConnections: true,
  });
  if (overrides.logger === undefined) useJsonLogs(app);
  const config = app.get<CoordinatorConfig>(COORDINATOR_CONFIG);
  const logger = new Logger('Coordinator');
  const keyless = app.get(ApiKeys).keyless;
  // Everything mounted below (REST, SSE, the board, the docs, and surfaces added later) passes these, in order.
  app.disable('x-powered-by');
  if (tracingActive()) app.use(requestSpans());
  app.set('trust proxy', config.TRUST_PROXY);
  app.use(securityHeaders());
  if (keyless) app.use(loopbackHostOnly(config.ALLOWED_HOSTS));
  app.use(refuseUnwantedBodies());
  app.use(sameSiteJsonWrites());
  const auth = app.get(AuthMiddleware);
  app.use((req: Request, res: Response, next: NextFunction) => auth.use(req, res, next));
  const requestRate = app.get(RequestRateMiddleware);
  app.use((req: Request, res: Response, next: NextFunction) => requestRate.use(req, res, next));
  const largeBodies = app.get(LargeBodiesMiddleware);
  app.use((req: Request, res: Response, next: NextFunction) => largeBodies.use(req, res, next));
  app.use(jsonBodies());
  app.useGlobalFilters(new HttpErrorsFilter());
  if (overrides.shutdownHooks !== false) app.enableShutdownHooks();
  // Without API keys the service is open, so it listens on loopback only.
  const host = config.HOST ?? (keyless ? '127.0.0.1' : '0.0.0.0');

  const queues = [COORDINATOR_QUEUE, SUBAGENT_QUEUE, INGEST_QUEUE, WEBHOOK_QUEUE].map((name) => app.get<Queue>(getQueueToken(name)));
  app.use(BOARD_PATH, bullBoardRouter(queues));
  mountWebPage(app);
  mountMcp(app, { boundHost: host, allowedHosts: config.ALLOWED_HOSTS });

  const document = SwaggerModule.createDocument(app, new DocumentBuilder().setTitle('Orrery').setDescription('Multi-agent research service').setVersion('1').addBearerAuth().build());
  document.components = {
    ...document.components,
    schemas: Object.fromEntries(
      Object.entries({ ResearchRequest: ResearchRequestSchema, Run: RunSchema, Report: ReportSchema, RunEvent: RunEventSchema }).map(([k, s]) => [k, z.toJSONSchema(s, { unrepresentable: 'any' }) as object]),
    ),
  };
  SwaggerModule.setup('docs', app, document, { jsonDocumentUrl: 'docs/openapi.json' });

  if (config.TRUST_PROXY === true) {
    logger.warn('TRUST_PROXY=true takes the client address from the left end of X-Forwarded-For, which the client writes itself: anyone can pick the address their wrong keys count against, or lock out another. Set the number of proxies in front instead (TRUST_PROXY=1 for one), or their addresses (docs/security.md)');
  }
  if (keyless && host !== '127.0.0.1') logger.warn(`API_KEYS is unset but HOST=${host}: the API is open to anyone who can reach it (requests must still name a loopback host or one of ALLOWED_HOSTS)`);
  limitRequestTime(app.getHttpServer() as Server, config);
  await app.listen(overrides.port ?? config.PORT, host);
  const address = app.getHttpServer().address();
  const port = typeof address === 'object' && address ? address.port : config.PORT;
  const url = `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${port}`;
  const access = !keyless ? ' (API keys required)' : host === '127.0.0.1' ? ' (no API_KEYS set: bound to 127.0.0.1 only)' : ' (no API_KEYS set: open)';
  logger.log(`listening on ${host}:${port}${access}; web page at /, docs at /docs, queues at ${BOARD_PATH}`);
  logger.log(`engine ${engineName(app.get(EngineFactory))}, Redis ${describeRedisLocation(config)}, corpus store ${describeStore(loadStoreLocation())}, log level ${logLevelFromEnv()}${tracingActive() ? ', traces exported over OTLP' : ''}`);
  return { app, url };
}

/**
 * A client gets HTTP_HEADERS_TIMEOUT_MS to send its headers and HTTP_REQUEST_TIMEOUT_MS for the whole request
 * (not the answer: event streams stay open), then 408 and a closed socket, so slow senders cannot hold
 * connections. Node checks these on an interval (30 s by default), read when the server starts listening.
 */
function limitRequestTime(server: Server, config: CoordinatorConfig): void {
  server.headersTimeout = config.HTTP_HEADERS_TIMEOUT_MS;
  server.requestTimeout = config.HTTP_REQUEST_TIMEOUT_MS;
  (server as Server & { connectionsCheckingInterval: number }).connectionsCheckingInterval = Math.min(1000, config.HTTP_HEADERS_TIMEOUT_MS);
}

/** Where the passages live, without a PostgreSQL URL's password. */
function describeStore(store: StoreLocation): string {
  if (store.kind === 'sqlite') return `SQLite ${store.file}`;
  const u = new URL(store.url);
  return `PostgreSQL ${u.host}${u.pathname} (schema ${store.schema})`;
}

function engineName(engines: EngineFactory): string {
  try {
    return engines.resolve();
  } catch (err) {
    return `unavailable (${(err as Error).message})`;
  }
}
