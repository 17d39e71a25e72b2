import { Global, Logger, Module } from '@nestjs/common';
import { EngineFactory, loadEngineConfig, processEngineFactory } from '@orrery/engines';

@Global()
@Module({
  providers: [
    {
      provide: EngineFactory,
      // The server profile is known before any engine is built: with ANTHROPIC_PROFILE=auto the server is asked first.
      useFactory: async () => {
        const engines = processEngineFactory(loadEngineConfig);
        const found = await engines.detectServerProfile();
        if (engines.config.ANTHROPIC_PROFILE === 'auto' && engines.config.ANTHROPIC_BASE_URL) {
          new Logger('Engines').log(`ANTHROPIC_BASE_URL answers as ${found.server}: server profile ${found.profile}`);
        }
        return engines;
      },
    },
  ],
  exports: [EngineFactory],
})
export class EnginesModule {}
