import { describe, expect, it } from 'vitest';
import { asksHowTo, namedYears, questionForm } from './question-form';

describe('questionForm', () => {
  it.each([
    ['In what year did Franklin D. Roosevelt first deliver a State of the Union address?', 'time', 'earliest'],
    ['When did Barack Obama deliver his last State of the Union address?', 'time', 'latest'],
    ['Who delivered the most recent State of the Union address?', 'person', 'latest'],
    ['Which president first mentioned the Panama Canal?', 'person', 'earliest'],
    ['How many annual messages did George Washington deliver?', 'count', null],
    ['Did Woodrow Wilson mention the League of Nations?', 'yes-no', null],
    ['In which address did Roosevelt describe four freedoms?', 'document', null],
    ['Which State of the Union address first mentioned the Internet?', 'document', 'earliest'],
    ['What is the Monroe Doctrine?', 'fact', null],
    ['In 1941, which four freedoms did Roosevelt name?', 'fact', null],
    ['What did Lincoln say about emancipation in 1862?', 'fact', null],
    ['What did presidents say about tariffs?', null, null],
    ['What happened to the salmon of the Kestrel River and its dams?', null, null],
    ['What happened to the Kestrel River dams in 1998?', 'fact', null],
    ['What did the president first propose on radio?', 'fact', 'earliest'],
    ['Which presidents talked about immigration?', null, null],
    ['How have U.S. presidents talked about immigration?', null, null],
    ['Why did presidents stop delivering the address in writing?', null, null],
    ['Hurricane Zelda', null, null],
    // The question words after a preposition, after a topic, or at the end ask as they would at the start.
    ['In how many of his addresses did Franklin D. Roosevelt mention the United Nations?', 'count', null],
    ['By which president was smallpox last mentioned?', 'person', 'latest'],
    ['By whom was the Erie Canal first mentioned?', 'person', 'earliest'],
    ['Yellow fever: who first brought it up?', 'person', 'earliest'],
    ['The Great Society was first mentioned in which year?', 'time', 'earliest'],
    ['Smallpox was last mentioned by which president?', 'person', 'latest'],
    ['The Berlin Wall came up first in what address', 'document', 'earliest'],
    ['Sputnik was first mentioned when?', 'time', 'earliest'],
    ["The first mention of Medicare came in which president's address?", 'person', 'earliest'],
    ['Immigration: an overview', null, null],
    ['Lincoln on slavery, and what he thought of it', null, null],
  ])('%s → %s, %s', (q, expects, ordinal) => {
    const f = questionForm(q);
    expect(f.expects).toBe(expects);
    expect(f.ordinal).toBe(ordinal);
  });
});

describe('namedYears', () => {
  it.each([
    ['in 1862', { from: 1862, to: 1862 }],
    ['between 1900 and 1920', { from: 1900, to: 1920 }],
    ['from 1920 to 1900', { from: 1900, to: 1920 }],
    ['1861–1865', { from: 1861, to: 1865 }],
    ['in the 1930s', { from: 1930, to: 1939 }],
    ['in the nineteenth century', { from: 1801, to: 1900 }],
    ['in the 20th century', { from: 1901, to: 2000 }],
    ['before 1850', { from: 0, to: 1849 }],
    ['after 1945', { from: 1946, to: 9999 }],
    ['since 1945', { from: 1945, to: 9999 }],
    ['the Monroe Doctrine', null],
  ])('%s', (text, range) => {
    expect(namedYears(text)).toEqual(range);
  });
});

describe('asksHowTo', () => {
  it('reads a question that asks how to do one thing', () => {
    for (const q of ['How do I set a connection timeout in pg?', 'how can we limit uploads?', 'How to verify a JWT']) expect(asksHowTo(q)).toBe(true);
    for (const q of ['How have presidents talked about immigration?', 'How do pg and ioredis differ?', 'How many times?']) expect(asksHowTo(q)).toBe(false);
  });
});
