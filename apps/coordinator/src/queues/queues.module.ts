import { BullModule } from '@nestjs/bullmq';
import { Module } from '@nestjs/common';
import { COORDINATOR_QUEUE, SUBAGENT_QUEUE } from '@orrery/protocol';
import { COORDINATOR_CONFIG, type CoordinatorConfig } from '../config/coordinator-config';
import { DispatchedTasks } from './dispatched-tasks';
import { FleetGate } from './fleet-gate';
import { TaskBarrier } from './task-barrier';
import { TaskDispatcher } from './task-dispatcher';

@Module({
  imports: [
    BullModule.forRootAsync({
      inject: [COORDINATOR_CONFIG],
      useFactory: (config: CoordinatorConfig) => ({
        connection: { url: config.REDIS_URL, maxRetriesPerRequest: null },
        prefix: config.QUEUE_PREFIX,
      }),
    }),
    BullModule.registerQueue({ name: COORDINATOR_QUEUE }, { name: SUBAGENT_QUEUE }),
  ],
  providers: [TaskDispatcher, DispatchedTasks, TaskBarrier, FleetGate],
  exports: [TaskDispatcher, DispatchedTasks, TaskBarrier, FleetGate, BullModule],
})
export class QueuesModule {}
