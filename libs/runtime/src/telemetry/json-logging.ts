import { type DynamicModule, type INestApplicationContext, Injectable, Module } from '@nestjs/common';
import { Logger, LoggerModule } from 'nestjs-pino';
import { pinoOptions } from './log-options';

/** Nest's own start-up chatter (every module, route and mapping): kept for LOG_LEVEL=debug. */
const FRAMEWORK_CONTEXTS = new Set(['NestFactory', 'InstanceLoader', 'RoutesResolver', 'RouterExplorer', 'NestApplication', 'NestMicroservice']);

/** nestjs-pino's logger, with the framework's start-up lines moved to debug so that start-up reads in a few lines. */
@Injectable()
class QuietFrameworkLogger extends Logger {
  override log(message: unknown, ...optional: unknown[]): void {
    if (FRAMEWORK_CONTEXTS.has(String(optional.at(-1)))) return super.debug(message, ...optional);
    super.log(message, ...optional);
  }
}

/** JSON log lines for one process through pino; no line per HTTP request (the metrics and traces count those). */
@Module({})
export class JsonLoggingModule {
  static forService(service: string): DynamicModule {
    return { module: JsonLoggingModule, providers: [QuietFrameworkLogger], exports: [QuietFrameworkLogger], imports: [LoggerModule.forRoot({ pinoHttp: { ...pinoOptions(service), autoLogging: false, quietReqLogger: true }, renameContext: 'context' })] };
  }
}

/** Makes the app log through pino; call right after creating it with `bufferLogs: true`. */
export function useJsonLogs(app: INestApplicationContext): void {
  app.useLogger(app.get(QuietFrameworkLogger, { strict: false }));
}
