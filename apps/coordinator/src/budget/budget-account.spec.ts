import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { REPO_ROOT, sourceFiles } from '../../../../test/support/source-files';
import { describe, expect, it } from 'vitest';
import { openBudgetAccount, openReserved } from './budget-account';
import { budgetCall } from '@orrery/decisions';
import { remaining, tightestOf } from './remaining';
import type { BudgetAccount } from './budget-account';
import { reserve } from './reserve';
import { chargeTokens, release, settle } from './settle';
import { startRound } from './start-round';

/** The budget call the round policy makes on an account: the tightest dimension, dollars included. */
const call = (st: BudgetAccount, nowMs: number) => budgetCall(tightestOf(remaining(st, nowMs)).fraction);

const budget = { maxTokens: 10_000, maxTasks: 10, maxRounds: 4, maxWallSeconds: 100, maxCostUsd: 10 };
const T0 = 1_000_000;
const usage = (n: number, costUsd = 0) => ({ inputTokens: n, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, webSearchRequests: 0, webFetchRequests: 0, costUsd });

describe('BudgetAccount: reserve', () => {
  it('reserves within the budget and counts the reservation as committed', () => {
    const r = reserve(openBudgetAccount(budget, T0), { id: 'r1', tasks: 4, tokens: 4000 });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.trimmed).toBe(false);
    expect(openReserved(r.state)).toEqual({ tasks: 4, tokens: 4000, costUsd: 0 });
    expect(remaining(r.state, T0)).toEqual({ tokens: 0.6, tasks: 0.6, rounds: 1, wallSeconds: 1, costUsd: 1 });
  });
  it('trims to what is left, tokens pro rata', () => {
    const first = reserve(openBudgetAccount(budget, T0), { id: 'r1', tasks: 8, tokens: 4000 });
    if (!first.ok) throw new Error('first reserve refused');
    const r = reserve(first.state, { id: 'r2', tasks: 4, tokens: 4000 });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.trimmed).toBe(true);
    expect(r.reservation.granted).toEqual({ tasks: 2, tokens: 2000, costUsd: 0 });
  });
  it('refuses in refuse mode, and in any mode when no task is left', () => {
    const first = reserve(openBudgetAccount(budget, T0), { id: 'r1', tasks: 8, tokens: 1000 });
    if (!first.ok) throw new Error('first reserve refused');
    expect(reserve(first.state, { id: 'r2', tasks: 3, tokens: 10 }, { mode: 'refuse' }).ok).toBe(false);
    const full = reserve(first.state, { id: 'r2', tasks: 2, tokens: 10 });
    if (!full.ok) throw new Error('should fit');
    const none = reserve(full.state, { id: 'r3', tasks: 1, tokens: 10 });
    expect(none.ok).toBe(false);
    if (!none.ok) expect(none.reason).toContain('no task left');
  });
  it('refuses once the wall clock is spent', () => {
    const r = reserve(openBudgetAccount(budget, T0), { id: 'r1', tasks: 1, tokens: 10 }, { nowMs: T0 + 100_000 });
    expect(r.ok).toBe(false);
  });
  it('is idempotent per reservation id', () => {
    const a = reserve(openBudgetAccount(budget, T0), { id: 'r1', tasks: 4, tokens: 4000 });
    if (!a.ok) throw new Error('refused');
    const b = reserve(a.state, { id: 'r1', tasks: 4, tokens: 4000 });
    expect(b.ok && b.replayed).toBe(true);
    expect(b.state).toBe(a.state);
  });
});

describe('BudgetAccount: settle', () => {
  const reserved = () => {
    const r = reserve(openBudgetAccount(budget, T0), { id: 'round-1', tasks: 4, tokens: 4000 });
    if (!r.ok) throw new Error('refused');
    return r.state;
  };
  it('adds actual usage and releases the unused part of the task share', () => {
    const s = settle(reserved(), { taskId: 't1', reservationId: 'round-1', usage: usage(300) });
    expect(s.applied).toBe(true);
    expect(s.releasedTokens).toBe(700);
    expect(s.state.used).toEqual({ tokens: 300, tasks: 1, costUsd: 0 });
    expect(openReserved(s.state)).toEqual({ tasks: 3, tokens: 3000, costUsd: 0 });
    expect(remaining(s.state, T0).tokens).toBeCloseTo(1 - 3300 / 10_000, 10);
  });
  it('settling the same task twice changes nothing (at-least-once delivery)', () => {
    const once = settle(reserved(), { taskId: 't1', reservationId: 'round-1', usage: usage(300) });
    const twice = settle(once.state, { taskId: 't1', reservationId: 'round-1', usage: usage(300) });
    expect(twice.applied).toBe(false);
    expect(twice.state).toBe(once.state);
    expect(twice.state.used).toEqual({ tokens: 300, tasks: 1, costUsd: 0 });
  });
  it('closes the reservation when every task settled; an overrun is counted in full', () => {
    let st = reserved();
    for (const [i, n] of [100, 200, 300, 5000].entries()) st = settle(st, { taskId: `t${i}`, reservationId: 'round-1', usage: usage(n) }).state;
    expect(openReserved(st)).toEqual({ tasks: 0, tokens: 0, costUsd: 0 });
    expect(st.used).toEqual({ tokens: 5600, tasks: 4, costUsd: 0 });
  });
  it('release frees what will not run; charges are idempotent', () => {
    const st = release(settle(reserved(), { taskId: 't1', reservationId: 'round-1', usage: 100 }).state, 'round-1');
    expect(openReserved(st)).toEqual({ tasks: 0, tokens: 0, costUsd: 0 });
    const c1 = chargeTokens(st, 'plan', usage(500));
    const c2 = chargeTokens(c1.state, 'plan', usage(500));
    expect(c2.applied).toBe(false);
    expect(c2.state.used.tokens).toBe(600);
  });
  it('does not mutate the input state', () => {
    const st = reserved();
    const snapshot = JSON.stringify(st);
    settle(st, { taskId: 't1', reservationId: 'round-1', usage: 100 });
    expect(JSON.stringify(st)).toBe(snapshot);
    expect(JSON.parse(snapshot)).toEqual(st); // plain, serializable
  });
});

describe('BudgetAccount: dollars', () => {
  it('reserves dollars with tokens, pro rata, trimmed to what is left; settles and charges the actual cost', () => {
    const r = reserve(openBudgetAccount(budget, T0), { id: 'r1', tasks: 4, tokens: 4000, costUsd: 4 });
    if (!r.ok) throw new Error('refused');
    expect(r.reservation.granted).toEqual({ tasks: 4, tokens: 4000, costUsd: 4 });
    expect(remaining(r.state, T0).costUsd).toBeCloseTo(0.6, 10);
    const s = settle(r.state, { taskId: 't1', reservationId: 'r1', usage: usage(300, 2.5) });
    expect(s.state.used.costUsd).toBe(2.5);
    expect(openReserved(s.state).costUsd).toBeCloseTo(3, 10);
    const c = chargeTokens(s.state, 'plan', usage(10, 0.5));
    expect(c.state.used.costUsd).toBe(3);
    const trimmed = reserve(c.state, { id: 'r2', tasks: 2, tokens: 100, costUsd: 10 });
    expect(trimmed.ok && trimmed.reservation.granted.costUsd).toBeCloseTo(4, 10);
  });
  it('wraps up below 15% of the dollars and refuses to reserve once they are spent', () => {
    let st = settle(openBudgetAccount(budget, T0), { taskId: 'a', usage: usage(10, 8.4) }).state;
    expect(call(st, T0)).toBe('ok');
    st = settle(st, { taskId: 'b', usage: usage(10, 0.2) }).state;
    expect(call(st, T0)).not.toBe('ok');
    st = chargeTokens(st, 'judge', usage(1, 1.4)).state;
    expect(call(st, T0)).toBe('exhausted');
    const none = reserve(st, { id: 'r9', tasks: 1, tokens: 10, costUsd: 0.1 });
    expect(none.ok).toBe(false);
    if (!none.ok) expect(none.reason).toContain('no dollar left');
  });
});

describe('BudgetAccount: rounds, wrap-up, exhaustion', () => {
  it('counts rounds idempotently', () => {
    let st = startRound(openBudgetAccount(budget, T0), 1);
    st = startRound(st, 1);
    expect(st.roundsStarted).toBe(1);
    expect(remaining(st, T0).rounds).toBe(0.75);
    st = startRound(startRound(startRound(st, 2), 3), 4);
    expect(call(st, T0)).toBe('exhausted');
  });
  it('wraps up strictly below 15% left in any dimension', () => {
    const st = openBudgetAccount(budget, T0);
    expect(call(st, T0 + 84_000)).toBe('ok'); // 16% wall left
    expect(call(st, T0 + 85_000)).toBe('ok'); // exactly 15%
    expect(call(st, T0 + 85_001)).not.toBe('ok');
    expect(call(st, T0 + 85_001)).not.toBe('exhausted');
    expect(call(st, T0 + 100_000)).toBe('exhausted');
  });
  it('wraps up on tokens once settled usage passes 85%', () => {
    let st = openBudgetAccount(budget, T0);
    st = settle(st, { taskId: 'a', usage: 8500 }).state;
    expect(call(st, T0)).toBe('ok');
    st = settle(st, { taskId: 'b', usage: 1 }).state;
    expect(call(st, T0)).not.toBe('ok');
  });
});

describe('one meaning of "ledger"', () => {
  it('is the evidence ledger: the budget side is an account, save the API field budgetLedger', () => {
    const strays = ['apps', 'libs', 'bench']
      .flatMap((d) => sourceFiles(join(REPO_ROOT, d)))
      .filter((p) => /Budget\w*Ledger|LedgerReservation|createLedger|budget ledger/i.test(readFileSync(p, 'utf8').replaceAll('budgetLedger', '')))
      .map((p) => relative(REPO_ROOT, p));
    expect(strays).toEqual([]);
  });
});
