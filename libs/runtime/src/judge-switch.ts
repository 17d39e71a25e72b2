import { type JudgeSwitchState, modelJudgingOn, readJudgeSwitch } from '@orrery/decisions';
import type { RedisClient } from './redis-connection';

export type { JudgeSwitchState };

/**
 * The judge switch of a whole deployment (one QUEUE_PREFIX), in Redis: off stops every model judgement at once, in
 * the hub's round judge, the workers' loop judges and the MCP judge, running runs included; the rules go on alone.
 * Read at every decision (one GET), never cached, so a flip takes effect on the next judgement anywhere. How a
 * stored value reads is the decision kernel's rule (readJudgeSwitch).
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
    return readJudgeSwitch(await this.redis.get(this.key));
  }

  async enabled(): Promise<boolean> {
    return (await this.state()).enabled;
  }

  /** Whether a model may judge now, for a process whose JUDGE setting is `judgeSetting`. */
  async modelJudging(judgeSetting: 'on' | 'off' | boolean): Promise<boolean> {
    return modelJudgingOn(judgeSetting, await this.state());
  }

  async set(enabled: boolean, changedBy?: string): Promise<JudgeSwitchState> {
    const state: JudgeSwitchState = { enabled, changedAt: new Date().toISOString(), ...(changedBy ? { changedBy: changedBy.slice(0, 200) } : {}) };
    await this.redis.set(this.key, JSON.stringify(state));
    return state;
  }
}
