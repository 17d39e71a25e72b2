import { InjectQueue } from '@nestjs/bullmq';
import { BadRequestException, HttpException, HttpStatus, Inject, Injectable, NotFoundException } from '@nestjs/common';
import { EngineFactory } from '@orrery/engines';
import { WATCH_QUEUE, type Watch, type WatchRequest, type WatchTick } from '@orrery/protocol';
import type { Queue } from 'bullmq';
import { randomUUID } from 'node:crypto';
import { canSee, type Principal } from '../auth/principal';
import { COORDINATOR_CONFIG, type CoordinatorConfig } from '../config/coordinator-config';
import { WebhookTargets } from '../webhooks/webhook-targets.service';
import { WatchStore } from './watch-store';

/**
 * Questions that keep watch: each watch is a BullMQ job scheduler on the watches queue (no timer of our own), owned by
 * the key that made it; pausing removes the scheduler, resuming puts it back, deleting removes both.
 */
@Injectable()
export class WatchesService {
  constructor(
    private readonly store: WatchStore,
    private readonly engines: EngineFactory,
    private readonly webhookTargets: WebhookTargets,
    @InjectQueue(WATCH_QUEUE) readonly queue: Queue,
    @Inject(COORDINATOR_CONFIG) private readonly config: CoordinatorConfig,
  ) {}

  async create(principal: Principal, request: WatchRequest): Promise<Watch> {
    const min = this.config.WATCH_MIN_EVERY_SECONDS;
    if (request.every < min) throw new BadRequestException(`every: at least ${min} seconds`);
    if (request.corpus !== undefined && !(await this.engines.knowsCorpus(request.corpus))) throw new BadRequestException(`corpus: unknown corpus "${request.corpus}"`);
    if (request.webhook) await this.webhookTargets.assertAllowed(request.webhook.url);
    if (!principal.admin && (await this.store.count(principal.id)) >= this.config.WATCHES_PER_KEY) {
      throw new HttpException(`this key keeps ${this.config.WATCHES_PER_KEY} watches already: delete one first`, HttpStatus.TOO_MANY_REQUESTS);
    }
    const watch: Watch = {
      id: randomUUID(),
      owner: principal.id,
      ownerAdmin: principal.admin,
      question: request.question,
      everySeconds: request.every,
      ...(request.corpus ? { corpus: request.corpus } : {}),
      ...(request.webhook ? { webhook: request.webhook } : {}),
      ...(request.budget ? { budget: request.budget } : {}),
      status: 'active',
      createdAt: new Date().toISOString(),
      runs: [],
    };
    await this.store.create(watch);
    await this.schedule(watch);
    return watch;
  }

  /** The first run goes at once; then one every `everySeconds`. */
  private async schedule(watch: Watch): Promise<void> {
    const tick: WatchTick = { watchId: watch.id };
    await this.queue.upsertJobScheduler(watch.id, { every: watch.everySeconds * 1000, immediately: true }, { name: 'watch', data: tick, opts: { attempts: 3, backoff: { type: 'exponential', delay: 1000 }, removeOnComplete: { count: 100 }, removeOnFail: { count: 100 } } });
  }

  list(principal: Principal): Promise<Watch[]> {
    return this.store.ofOwner(principal.id);
  }

  /** The watch, if the caller owns it (an admin: any); 404 alike for one that does not exist and one another key owns. */
  async get(principal: Principal, id: string): Promise<Watch> {
    const watch = await this.store.get(id);
    if (!watch || !canSee(principal, watch.owner)) throw new NotFoundException(`watch ${id} not found`);
    return watch;
  }

  async pause(principal: Principal, id: string): Promise<Watch> {
    await this.get(principal, id);
    const watch = (await this.store.mutate(id, (w) => (w.status === 'paused' ? undefined : { ...w, status: 'paused' })))!;
    await this.queue.removeJobScheduler(id);
    return watch;
  }

  async resume(principal: Principal, id: string): Promise<Watch> {
    await this.get(principal, id);
    const watch = (await this.store.mutate(id, (w) => (w.status === 'active' ? undefined : { ...w, status: 'active' })))!;
    await this.schedule(watch);
    return watch;
  }

  async remove(principal: Principal, id: string): Promise<void> {
    const watch = await this.get(principal, id);
    await this.queue.removeJobScheduler(id);
    await this.store.remove(watch);
  }
}
