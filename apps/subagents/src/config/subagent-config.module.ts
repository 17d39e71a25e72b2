import { Module } from '@nestjs/common';
import { loadSubagentConfig, SUBAGENT_CONFIG } from './subagent-config';

/** The worker's settings, read and validated once when the module graph is built. */
@Module({
  providers: [{ provide: SUBAGENT_CONFIG, useFactory: () => loadSubagentConfig() }],
  exports: [SUBAGENT_CONFIG],
})
export class SubagentConfigModule {}
