import { Logger, Module } from '@nestjs/common';
import { EngineFactory, loadEngineConfig, processEngineFactory } from '@orrery/engines';

/** The model engines of this process, built once from its environment. */
@Module({
  providers: [{ provide: EngineFactory, useFactory: () => processEngineFactory(loadEngineConfig, (line) => new Logger('Engines').log(line)) }],
  exports: [EngineFactory],
})
export class EnginesModule {}
