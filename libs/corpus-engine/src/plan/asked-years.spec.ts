import { describe, expect, it } from 'vitest';
import { askedYears, yearsOutside } from './asked-years';

describe('askedYears', () => {
  it('reads the years a question is bounded to', () => {
    expect(askedYears('How has the discussion of education changed since 1900?')).toEqual({ from: 1900, to: 9999 });
    expect(askedYears('What did presidents say about tariffs after 1860?')).toEqual({ from: 1861, to: 9999 });
    expect(askedYears('How did talk of railroads change over the nineteenth century?')).toEqual({ from: 1800, to: 1899 });
    expect(askedYears('Immigration in the 20th century')).toEqual({ from: 1900, to: 1999 });
    expect(askedYears('What did presidents say about labor in the 1930s?')).toEqual({ from: 1930, to: 1939 });
    expect(askedYears('How was the tariff discussed between 1850 and 1900?')).toEqual({ from: 1850, to: 1900 });
    expect(askedYears('Railroads before 1900')).toEqual({ from: -9999, to: 1899 });
  });

  it('reads none where the question names no years', () => {
    expect(askedYears('How have presidents talked about immigration?')).toBeNull();
    expect(askedYears('Trace how presidents have spoken about the environment over the decades.')).toBeNull();
    expect(askedYears('What did the 1,500 passages say?')).toBeNull();
  });

  it('leaves out the years outside', () => {
    expect(yearsOutside({ from: 1900, to: 9999 })).toEqual([{ from: -9999, to: 1899 }]);
    expect(yearsOutside({ from: 1800, to: 1899 })).toEqual([{ from: -9999, to: 1799 }, { from: 1900, to: 9999 }]);
  });
});
