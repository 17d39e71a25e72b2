/** The deployment's judge switch as stored (`JudgeSwitchStateSchema` in @orrery/protocol). */
export interface JudgeSwitchState {
  enabled: boolean;
  changedAt?: string;
  changedBy?: string;
}

/**
 * The reading of the kill switch, one rule for every surface: no stored value means on; a value that does not parse
 * counts as off (conservative: an operator meant something).
 */
export function readJudgeSwitch(raw: string | null): JudgeSwitchState {
  if (raw === null) return { enabled: true };
  try {
    const v = JSON.parse(raw) as Partial<JudgeSwitchState> | null;
    if (v && typeof v.enabled === 'boolean') {
      return { enabled: v.enabled, ...(typeof v.changedAt === 'string' ? { changedAt: v.changedAt } : {}), ...(typeof v.changedBy === 'string' ? { changedBy: v.changedBy } : {}) };
    }
  } catch {
    // falls through: off
  }
  return { enabled: false };
}

/** Whether a model may judge now: the process's JUDGE setting and the deployment's switch must both be on. */
export function modelJudgingOn(judgeSetting: 'on' | 'off' | boolean, switchState: Pick<JudgeSwitchState, 'enabled'>): boolean {
  return (judgeSetting === true || judgeSetting === 'on') && switchState.enabled;
}
