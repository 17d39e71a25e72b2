import { describe, expect, it } from 'vitest';
import { classifyRequest } from './classify-request';

describe('classifyRequest', () => {
  it.each([
    ['Who was president in 1962?', 'straightforward'],
    ['When did the Marshall Plan start?', 'straightforward'],
    ['What is the Monroe Doctrine?', 'straightforward'],
    ['How many states joined the union after 1900?', 'straightforward'],
    ['Where was the first State of the Union delivered?', 'straightforward'],
    // By form, not by length or a keyword list: a single expected answer is straightforward.
    ['In what year did Franklin D. Roosevelt first deliver a State of the Union address?', 'straightforward'],
    ['Which president first mentioned the Panama Canal?', 'straightforward'],
    ['How many State of the Union addresses did Abraham Lincoln deliver?', 'straightforward'],
    ['Did George Washington mention slavery in any of his annual messages?', 'straightforward'],
    ['What did Lincoln say about emancipation in 1862?', 'straightforward'],
    ['In which address did Roosevelt describe four freedoms?', 'straightforward'],
    ['When did the language about energy change?', 'straightforward'],
    ['Who was the first governor of Dane County?', 'straightforward'],
    ['What did presidents say about tariffs?', 'breadth'],
    ['What happened to the salmon of the Kestrel River and its dams?', 'breadth'],
    ['Which presidents talked about immigration?', 'breadth'],
    ['How have U.S. presidents talked about immigration?', 'breadth'],
    ['Compare Hurricane Zelda and Hurricane Orlo', 'depth'],
    ['Which president compared tariffs to taxes?', 'depth'],
    ['How has immigration policy changed since 1900?', 'depth'],
    ['History of the Keswick railway', 'depth'],
    ['Hurricane Zelda', 'breadth'],
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

