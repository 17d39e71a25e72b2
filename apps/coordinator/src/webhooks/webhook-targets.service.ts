import { BadRequestException, Inject, Injectable } from '@nestjs/common';
import { COORDINATOR_CONFIG, type CoordinatorConfig } from '../config/coordinator-config';
import { WebhookRefusedError } from './webhook-refused.error';
import { checkResolvesPublic, webhookTarget } from './webhook-target';

const RESOLVE_TIMEOUT_MS = 3000;

/** The check a webhook URL passes when a run is created: a refused one is a 400 with the reason. */
@Injectable()
export class WebhookTargets {
  private readonly allowed: ReadonlySet<string>;
  constructor(@Inject(COORDINATOR_CONFIG) config: CoordinatorConfig) {
    this.allowed = new Set(config.WEBHOOK_ALLOWED_HOSTS);
  }

  async assertAllowed(url: string): Promise<void> {
    try {
      await checkResolvesPublic(webhookTarget(url, this.allowed), RESOLVE_TIMEOUT_MS);
    } catch (err) {
      if (err instanceof WebhookRefusedError) throw new BadRequestException(err.message);
      throw err;
    }
  }
}
