import { RECENT_ACTIONS_WINDOW } from '../thresholds';
import type { StepAction, StepJudgeInput } from './step-judge-types';

export interface ActionFacts {
  /** How many times the newest action occurs in the window, itself included (0 with no actions). */
  lastActionRepeats: number;
  /** Trailing actions in a row that brought no new information. */
  idleSteps: number;
  /** Whether the newest action is known to have brought new information. */
  lastBroughtInformation: boolean;
  actionsSeen: number;
  /** Actions in the window known to have brought new information. */
  withNewInformation: number;
}

const key = (s: string): string => s.trim().replace(/\s+/g, ' ').toLowerCase();

/**
 * What the recent actions say. An action brought new information when it says so, or else when its
 * result is non-empty and differs from every earlier result in the window; a bare string says nothing.
 */
export function actionFacts(input: Pick<StepJudgeInput, 'recentActions'>): ActionFacts {
  const all = input.recentActions ?? [];
  const actions = all.length > RECENT_ACTIONS_WINDOW ? all.slice(-RECENT_ACTIONS_WINDOW) : all;
  const n = actions.length;
  if (n === 0) return { lastActionRepeats: 0, idleSteps: 0, lastBroughtInformation: false, actionsSeen: 0, withNewInformation: 0 };

  const keys = actions.map((a) => key(typeof a === 'string' ? a : a.action));
  const last = keys[n - 1]!;
  let lastActionRepeats = 0;
  for (const k of keys) if (k === last) lastActionRepeats++;

  const info: Array<boolean | undefined> = [];
  const results = new Set<string>();
  for (const a of actions) {
    info.push(informationOf(a, results));
    if (typeof a !== 'string' && a.result !== undefined) results.add(key(a.result));
  }
  let idleSteps = 0;
  for (let i = n - 1; i >= 0 && info[i] === false; i--) idleSteps++;
  return { lastActionRepeats, idleSteps, lastBroughtInformation: info[n - 1] === true, actionsSeen: n, withNewInformation: info.filter((x) => x === true).length };
}

function informationOf(a: string | StepAction, earlierResults: ReadonlySet<string>): boolean | undefined {
  if (typeof a === 'string') return undefined;
  if (a.newInformation !== undefined) return a.newInformation;
  if (a.result === undefined) return undefined;
  const r = key(a.result);
  return r.length > 0 && !earlierResults.has(r);
}
