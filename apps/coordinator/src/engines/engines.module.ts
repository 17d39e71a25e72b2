import { Global, Module } from '@nestjs/common';
import { EngineFactory, loadEngineConfig, processEngineFactory } from '@orrery/engines';

@Global()
@Module({
  providers: [{ provide: EngineFactory, useFactory: () => processEngineFactory(loadEngineConfig) }],
  exports: [EngineFactory],
})
export class EnginesModule {}
