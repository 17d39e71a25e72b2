import { Global, Logger, Module } from '@nestjs/common';
import { EngineFactory, loadEngineConfig, processEngineFactory } from '@orrery/engines';

@Global()
@Module({
  providers: [{ provide: EngineFactory, useFactory: () => processEngineFactory(loadEngineConfig, (line) => new Logger('Engines').log(line)) }],
  exports: [EngineFactory],
})
export class EnginesModule {}
