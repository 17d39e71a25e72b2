import { DiscoveryService } from '@nestjs/core';
import { type CoordinatorStep, CoordinatorStepSchema } from '@orrery/protocol';
import type { Job } from 'bullmq';

export type StepKind = CoordinatorStep['step'];
/** Every kind of step the coordinator queue carries: each needs exactly one handler. */
export const STEP_KINDS: readonly StepKind[] = CoordinatorStepSchema.options.map((o) => o.shape.step.value);

/** Marks the provider that runs one kind of coordinator step; the steps processor finds them at startup. */
export const HandlesStep = DiscoveryService.createDecorator<StepKind>();

export interface StepHandler<K extends StepKind = StepKind> {
  handle(step: Extract<CoordinatorStep, { step: K }>, job: Job): Promise<void>;
}
