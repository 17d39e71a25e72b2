import { Module } from '@nestjs/common';
import { QueuesModule } from '../queues/queues.module';
import { OutageWaitingRuns } from './outage-waiting-runs';
import { RunWaitingService } from './run-waiting.service';

/** The model provider's breaker as runs see it: whether they wait, and which were told so. */
@Module({ imports: [QueuesModule], providers: [RunWaitingService, OutageWaitingRuns], exports: [RunWaitingService, OutageWaitingRuns] })
export class BreakerModule {}
