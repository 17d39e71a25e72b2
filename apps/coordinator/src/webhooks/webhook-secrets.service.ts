import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { createHmac, randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { COORDINATOR_CONFIG, type CoordinatorConfig } from '../config/coordinator-config';
import { WebhookSecretStore } from './webhook-secret-store';

/**
 * Each key's signing secret, derived from one deployment secret: HMAC-SHA256(deployment secret, owner). A
 * tenant reads its own at GET /v1/webhooks/secret and can verify only its own runs' webhooks.
 *
 * The deployment secret is WEBHOOK_SECRET, or else one kept in Redis that every replica reads at each use, so
 * that no two replicas sign with different secrets. Redis can lose it (a restart without persistence, a
 * flush), and only the replicas that used it still know it: each puts it back (SET NX) at every use and every
 * WEBHOOK_SECRET_SYNC_MS, and a replica that finds none and knows none waits a few of those rounds before it
 * makes one, so a restarted replica adopts the one a live replica puts back.
 */
@Injectable()
export class WebhookSecrets implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(WebhookSecrets.name);
  /** The deployment secret this replica last signed with, once it has used one. */
  private held?: string;
  private making?: Promise<string>;
  private republishing?: NodeJS.Timeout;
  private unreachable = false;

  constructor(
    private readonly store: WebhookSecretStore,
    @Inject(COORDINATOR_CONFIG) private readonly config: CoordinatorConfig,
  ) {}

  onApplicationBootstrap(): void {
    if (this.config.WEBHOOK_SECRET) return;
    this.logger.warn(
      `WEBHOOK_SECRET is unset: webhook signing secrets derive from one kept in Redis (${this.store.key}). If Redis loses it while no coordinator that used it is running, a new one is made and every receiver must fetch its secret again. Set WEBHOOK_SECRET (openssl rand -hex 32), the same on every replica (docs/webhooks.md)`,
    );
  }

  onModuleDestroy(): void {
    clearInterval(this.republishing);
  }

  /** In the Standard Webhooks form, `whsec_` and the base64 of 32 bytes. */
  async forOwner(owner: string): Promise<string> {
    const key = createHmac('sha256', await this.deploymentSecret()).update(`webhook:${owner}`).digest('base64');
    return `whsec_${key}`;
  }

  private async deploymentSecret(): Promise<string> {
    if (this.config.WEBHOOK_SECRET) return this.config.WEBHOOK_SECRET;
    if (this.held === undefined) {
      const stored = await this.store.get();
      if (!stored) {
        this.making ??= this.makeOne().finally(() => (this.making = undefined));
        return this.making;
      }
      this.hold(stored);
    }
    return this.sync();
  }

  /** None in Redis and none known here: a live replica that holds one gets the time to put it back first. */
  private async makeOne(): Promise<string> {
    await sleep(this.config.WEBHOOK_SECRET_SYNC_MS * 3);
    if (this.held !== undefined) return this.sync();
    const { current, put } = await this.store.publish(randomBytes(32).toString('hex'));
    if (put) this.logger.warn(`no webhook secret in Redis and none put back by another replica: made a new one (${this.store.key}); every key's webhook secret is new`);
    this.hold(current);
    return current;
  }

  /**
   * Puts the held secret back in Redis unless one is there, and returns the one that is: the one every replica
   * signs with. One that differs from the held one means two were made; it is adopted, and said loudly.
   */
  private async sync(): Promise<string> {
    const held = this.held!;
    const { current, put } = await this.store.publish(held);
    if (put) this.logger.warn(`the webhook secret was gone from Redis (did it lose its data?): put back the one this replica signs with (${this.store.key})`);
    if (current !== held) {
      this.logger.error(
        `the webhook secret in Redis (${this.store.key}) is not the one this replica signed with: another replica made one while Redis had none, or it was set by hand. Signing with Redis's from now on, as every replica does; receivers must fetch their secrets again. Set WEBHOOK_SECRET to rule this out`,
      );
      this.hold(current);
    }
    return current;
  }

  private hold(secret: string): void {
    this.held = secret;
    this.republishing ??= setInterval(() => void this.republish(), this.config.WEBHOOK_SECRET_SYNC_MS).unref();
  }

  /** One round of the timer; while Redis does not answer, that is said once, not every round. */
  private async republish(): Promise<void> {
    try {
      await this.sync();
      this.unreachable = false;
    } catch (err) {
      if (!this.unreachable) this.logger.warn(`the webhook secret could not be put back in Redis, retrying every ${this.config.WEBHOOK_SECRET_SYNC_MS} ms: ${(err as Error).message}`);
      this.unreachable = true;
    }
  }
}
