import { Global, Module } from '@nestjs/common';
import { COORDINATOR_CONFIG, loadCoordinatorConfig } from './coordinator-config';

@Global()
@Module({
  providers: [{ provide: COORDINATOR_CONFIG, useFactory: () => loadCoordinatorConfig() }],
  exports: [COORDINATOR_CONFIG],
})
export class ConfigModule {}
