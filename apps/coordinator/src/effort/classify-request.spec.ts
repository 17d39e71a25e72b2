import { describe, expect, it } from 'vitest';
import { classifyRequest } from './classify-request';
import { capBudgetByEffort, effortFor } from './effort-for';

describe('classifyRequest', () => {
  it.each([
    ['Who was president in 1962?', 'straightforward'],
    ['When did the Marshall Plan start?', 'straightforward'],
    ['What is the Monroe Doctrine?', 'straightforward'],
    ['How many states joined the union after 1900?', 'straightforward'],
    ['Where was the first State of the Union delivered?', 'straightforward'],
    ['Compare Reagan and Obama on taxes', 'depth'],
    ['tariffs versus free trade', 'depth'],
    ['The history of immigration policy', 'depth'],
    ['evolution of civil rights rhetoric', 'depth'],
    ['Why did presidents stop delivering the address in writing?', 'depth'],
    ['How has the language about energy changed since 1970?', 'depth'],
    ['What is the history of the income tax?', 'depth'],
    ['immigration', 'breadth'],
    ['foreign policy themes', 'breadth'],
    ['List the main economic programs announced', 'breadth'],
    ['An overview of education initiatives', 'breadth'],
  ])('%s → %s', (topic, cls) => {
    expect(classifyRequest(topic).class).toBe(cls);
  });
  it('gives a long unremarkable request breadth with low confidence', () => {
    const c = classifyRequest('Presidential statements regarding agriculture subsidies and rural electrification programs in the midwest');
    expect(c.class).toBe('breadth');
    expect(c.confidence).toBeLessThanOrEqual(0.5);
    expect(c.signals.rule).toBe('default');
  });
  it('does not treat a long who-question as straightforward', () => {
    const c = classifyRequest('Who were all the people presidents thanked by name in their addresses about veterans and military families over the decades');
    expect(c.class).not.toBe('straightforward');
  });
  it('records the signals it used', () => {
    expect(classifyRequest('Compare A versus B').signals).toMatchObject({ rule: 'depth-signal', depthSignals: 'compare,versus' });
  });
});

describe('effortFor', () => {
  it('straightforward is one task, one round, direct answer', () => {
    expect(effortFor('straightforward')).toMatchObject({ maxSubagentsPerRound: 1, maxRounds: 1, fullPipeline: false });
  });
  it('breadth fans out wider, depth goes more rounds', () => {
    const b = effortFor('breadth');
    const d = effortFor('depth');
    expect(b.maxSubagentsPerRound).toBeGreaterThan(d.maxSubagentsPerRound);
    expect(d.maxRounds).toBeGreaterThan(b.maxRounds);
    expect(b.fullPipeline && d.fullPipeline).toBe(true);
  });
  it('caps a budget without raising it', () => {
    const budget = { maxTokens: 100_000, maxTasks: 30, maxRounds: 4, maxWallSeconds: 600 };
    expect(capBudgetByEffort(budget, effortFor('straightforward'))).toEqual({ ...budget, maxRounds: 1, maxTasks: 1 });
    expect(capBudgetByEffort(budget, effortFor('depth'))).toEqual({ ...budget, maxRounds: 4, maxTasks: 21 });
    expect(capBudgetByEffort({ ...budget, maxTasks: 3 }, effortFor('breadth')).maxTasks).toBe(3);
  });
  it('returns a copy callers may change', () => {
    const e = effortFor('breadth');
    e.maxRounds = 99;
    expect(effortFor('breadth').maxRounds).toBe(3);
  });
});
