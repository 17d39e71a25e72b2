import 'reflect-metadata';
import { type INestApplication, Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { COORDINATOR_QUEUE, INGEST_QUEUE, ReportSchema, ResearchRequestSchema, RunEventSchema, RunSchema, SUBAGENT_QUEUE, WEBHOOK_QUEUE } from '@orrery/protocol';
import type { Queue } from 'bullmq';
import { getQueueToken } from '@nestjs/bullmq';
import { z } from 'zod';
import type { NextFunction, Request, Response } from 'express';
import { loopbackHostOnly, sameSiteJsonWrites } from './api/browser-requests.middleware';
import { HttpErrorsFilter } from './api/http-errors.filter';
import { securityHeaders } from './api/security-headers';
import { ApiKeys } from './auth/api-keys';
import { AuthMiddleware } from './auth/auth.middleware';
import { BOARD_PATH, bullBoardRouter } from './board/bull-board';
import { RequestRateMiddleware } from './quotas/request-rate.middleware';
import { COORDINATOR_CONFIG, type CoordinatorConfig } from './config/coordinator-config';
import { CoordinatorModule } from './coordinator.module';
import { mountMcp } from './mcp/mcp-route';
import { mountWebPage } from './web/web-page';

export interface StartedCoordinator {
  app: INestApplication;
  url: string;
}

/** Builds and starts the coordinator's HTTP app. Port 0 picks a free port. */
export async function startCoordinator(overrides: { port?: number; logger?: false | ('log' | 'error' | 'warn' | 'debug')[] } = {}): Promise<StartedCoordinator> {
  const app = await NestFactory.create<NestExpressApplication>(CoordinatorModule, {
    logger: overrides.logger ?? ['log', 'error', 'warn'],
    bodyParser: false,
    // Open SSE streams must not hold a shutdown up: clients reconnect with Last-Event-ID.
    forceCloseConnections: true,
  });
  const config = app.get<CoordinatorConfig>(COORDINATOR_CONFIG);
  const logger = new Logger('Coordinator');
  const keyless = app.get(ApiKeys).keyless;
  // Everything mounted below (REST, SSE, the board, the docs, and surfaces added later) passes these, in order.
  app.disable('x-powered-by');
  app.set('trust proxy', config.TRUST_PROXY);
  app.use(securityHeaders());
  if (keyless) app.use(loopbackHostOnly(config.ALLOWED_HOSTS));
  app.use(sameSiteJsonWrites());
  const auth = app.get(AuthMiddleware);
  app.use((req: Request, res: Response, next: NextFunction) => auth.use(req, res, next));
  const requestRate = app.get(RequestRateMiddleware);
  app.use((req: Request, res: Response, next: NextFunction) => requestRate.use(req, res, next));
  // 1 MB so that an oversized topic gets zod's clear 400 rather than a bare 413.
  app.useBodyParser('json', { limit: '1mb' });
  app.useGlobalFilters(new HttpErrorsFilter());
  app.enableShutdownHooks();
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

  if (keyless && host !== '127.0.0.1') logger.warn(`API_KEYS is unset but HOST=${host}: the API is open to anyone who can reach it (requests must still name a loopback host or one of ALLOWED_HOSTS)`);
  await app.listen(overrides.port ?? config.PORT, host);
  const address = app.getHttpServer().address();
  const port = typeof address === 'object' && address ? address.port : config.PORT;
  const url = `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${port}`;
  const access = !keyless ? ' (API keys required)' : host === '127.0.0.1' ? ' (no API_KEYS set: bound to 127.0.0.1 only)' : ' (no API_KEYS set: open)';
  logger.log(`listening on ${host}:${port}${access}; web page at /, docs at /docs, queues at ${BOARD_PATH}`);
  return { app, url };
}
