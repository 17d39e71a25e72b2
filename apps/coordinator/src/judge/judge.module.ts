import { Module } from '@nestjs/common';
import { BreakerModule } from '../breaker/breaker.module';
import { EnginesModule } from '../engines/engines.module';
import { EventsModule } from '../events/events.module';
import { MetricsModule } from '../metrics/metrics.module';
import { DeploymentJudgeSwitch } from './deployment-judge-switch';
import { JudgeHealthService } from './judge-health.service';
import { RoundJudgeService } from './round-judge.service';

/** The judge of a run's rounds, the deployment's judge switch, and the judge model's health probe. */
@Module({
  imports: [EnginesModule, EventsModule, MetricsModule, BreakerModule],
  providers: [RoundJudgeService, DeploymentJudgeSwitch, JudgeHealthService],
  exports: [RoundJudgeService, DeploymentJudgeSwitch],
})
export class JudgeModule {}
