import { BullModule } from '@nestjs/bullmq';
import { Module } from '@nestjs/common';
import { COORDINATOR_QUEUE, SUBAGENT_QUEUE } from '@orrery/protocol';
import { bullConnection, bullTelemetry, queuePrefix } from '@orrery/runtime';
import { COORDINATOR_CONFIG, type CoordinatorConfig } from '../config/coordinator-config';
import { EnginesModule } from '../engines/engines.module';
import { DispatchedTasks } from './dispatched-tasks';
import { StepHold } from './step-hold';
import { FleetGate } from './fleet-gate';
import { StepChildren } from './step-children';
import { ROUND_FLOWS, TaskDispatcher } from './task-dispatcher';

@Module({
  imports: [
    EnginesModule,
    BullModule.forRootAsync({
      inject: [COORDINATOR_CONFIG],
      useFactory: (config: CoordinatorConfig) => ({
        connection: bullConnection(config, { maxRetriesPerRequest: null }),
        prefix: queuePrefix(config.QUEUE_PREFIX),
        telemetry: bullTelemetry(),
      }),
    }),
    BullModule.registerQueue({ name: COORDINATOR_QUEUE }, { name: SUBAGENT_QUEUE }),
    BullModule.registerFlowProducer({ name: ROUND_FLOWS }),
  ],
  providers: [TaskDispatcher, DispatchedTasks, StepChildren, FleetGate, StepHold],
  exports: [TaskDispatcher, DispatchedTasks, StepChildren, FleetGate, StepHold, BullModule],
})
export class QueuesModule {}
