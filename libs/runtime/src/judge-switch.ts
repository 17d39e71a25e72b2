import type { RedisClient } from './redis-connection';

/** As `JudgeSwitchStateSchema` in @orrery/protocol says (this library does not depend on it). */
export interface JudgeSwitchState {
  enabled: boolean;
  changedAt?: string;
  changedBy?: string;
}

const parse = (raw: string): JudgeSwitchState | undefined => {
  try {
    const v = JSON.parse(raw) as Partial<JudgeSwitchState> | null;
    return v && typeof v.enabled === 'boolean' ? { enabled: v.enabled, ...(typeof v.changedAt === 'string' ? { changedAt: v.changedAt } : {}), ...(typeof v.changedBy === 'string' ? { changedBy: v.changedBy } : {}) } : undefined;
  } catch {
    return undefined;
  }
};

/**
 * The judge switch of a whole deployment (one QUEUE_PREFIX), in Redis: off stops every model judgement at once, in
 * the hub's round judge and in the workers' loop judges, running runs included; the rules go on alone. Read at every
 * decision (one GET), never cached, so a flip takes effect on the next judgement anywhere. No key means on; a value
 * that does not parse counts as off (conservative: an operator meant something).
 */
export class JudgeSwitch {
  private readonly key: string;
  constructor(
    private readonly redis: RedisClient,
    prefix: string,
  ) {
    this.key = `${prefix}:judge:switch`;
  }

  async state(): Promise<JudgeSwitchState> {
    const raw = await this.redis.get(this.key);
    if (raw === null) return { enabled: true };
    return parse(raw) ?? { enabled: false };
  }

  async enabled(): Promise<boolean> {
    return (await this.state()).enabled;
  }

  async set(enabled: boolean, changedBy?: string): Promise<JudgeSwitchState> {
    const state: JudgeSwitchState = { enabled, changedAt: new Date().toISOString(), ...(changedBy ? { changedBy: changedBy.slice(0, 200) } : {}) };
    await this.redis.set(this.key, JSON.stringify(state));
    return state;
  }
}
