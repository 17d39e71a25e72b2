import { Module } from '@nestjs/common';
import { QueuesModule } from '../queues/queues.module';
import { LargeBodiesMiddleware } from './large-bodies.middleware';
import { RequestRateMiddleware } from './request-rate.middleware';
import { QuotaStore } from './quota-store';
import { RunQuotas } from './run-quotas.service';

/** How much each key may do: its request meter, its large bodies in line, its runs and daily spend. */
@Module({ imports: [QueuesModule], providers: [QuotaStore, RunQuotas, RequestRateMiddleware, LargeBodiesMiddleware], exports: [RunQuotas, RequestRateMiddleware, LargeBodiesMiddleware] })
export class QuotasModule {}
