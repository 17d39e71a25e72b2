import { describe, expect, it } from 'vitest';
import { analyzeTerms } from '@orrery/language';
import { extended, subjectStems, themesOf } from './themes';

const q = (quote: string, year: number, relevance = 1) => ({ quote, year, relevance, terms: new Set(analyzeTerms(quote)) });

describe('themes of the evidence', () => {
  const quotes = [
    q('The exclusion of Chinese laborers is demanded by the people of the Pacific coast.', 1882),
    q('The law for the exclusion of Chinese laborers has been evaded at the border.', 1885),
    q('The steamship companies should be held to account for the immigrants they bring.', 1901),
    q('Steamship companies must return the immigrants who are refused at our ports.', 1905),
    q('Restrictive immigration is to a large degree for economic purposes.', 1925),
    q('The policy of restrictive immigration should be maintained.', 1928),
    q('Our nation has always welcomed immigrants to our shores.', 1956),
  ];
  const themes = themesOf(quotes, { subject: subjectStems('immigration'), yearOf: (x) => x.year });

  it('groups quotes under the phrases they share, never the subject itself', () => {
    expect(themes.map((t) => t.title)).toEqual(expect.arrayContaining(['Steamship companies']));
    expect(themes.some((t) => /chinese/i.test(t.title))).toBe(true);
    expect(themes.some((t) => /restrict/i.test(t.title))).toBe(true);
    expect(themes.every((t) => !/^immigra/i.test(t.title.split(' ').pop()!) || t.title.includes(' '))).toBe(true);
    for (const t of themes) for (const x of t.quotes) expect(t.key.every((k) => x.terms.has(k))).toBe(true);
  });

  it("weighs a word beside the subject's ('Peacetime economy') little more than a word of its own ('Inflation')", () => {
    const economy = [
      q('Our peacetime economy must check inflation.', 1946),
      q('The peacetime economy suffers from inflation.', 1947),
      q('Rising inflation eats the savings of the economy.', 1948),
      q('The economy of the farms is sound.', 1949),
      q('Our economy needs more roads.', 1950),
      q('The economy of the cities grows.', 1951),
      q('An economy of small business thrives.', 1952),
      q('The economy depends on exports.', 1953),
    ];
    const themes = themesOf(economy, { subject: subjectStems('economy'), yearOf: (x) => x.year });
    expect(themes[0]!.title).toBe('Inflation');
    expect(themes[0]!.quotes).toHaveLength(3);
  });

  it("names a theme by the phrase the subject keeps company with, weighed as a phrase, not by its words' company", () => {
    // "Revenue" is said with the tariff in every era; "protective tariff" is the phrase of one period. Word by word,
    // "protect" keeps little company (protection of the fisheries, of the frontier); as a phrase, it is the company.
    const tariff = [
      q('The revenue from the tariff exceeds the wants of the Treasury.', 1880),
      q('A protective tariff shields the wages of our workmen.', 1882),
      q('The protective tariff has built our mills.', 1884),
      q('Under a protective tariff the mills grew.', 1886),
      q('The tariff yields a revenue beyond our needs.', 1888),
      q('Tariff revenue must be reduced.', 1889),
    ];
    const company = new Map([
      ['protect tariff', 1],
      ['revenu', 0.6],
      ['protect', 0.1],
    ]);
    const themes = themesOf(tariff, { subject: subjectStems('tariff'), company, yearOf: (x) => x.year, minQuotes: 3 });
    expect(themes[0]!.title).toBe('Protective tariff');
    expect(themes[0]!.quotes).toHaveLength(3);
  });

  it('names a theme as its quotes most often say it, whatever the order of its words', () => {
    // "zone law" and "law zone" are one theme; the tie between their keys must not pick the form one quote says.
    const zoning = [
      q('Our present zoning laws are unsatisfactory.', 1951),
      q('The zoning laws should be strengthened.', 1953),
      q('Lawful zoning must be welcomed.', 1954),
      q('We need better zoning laws in our cities.', 1955),
      q('Zoning troubles the suburbs.', 1956),
      q('Zoning grew in the west.', 1957),
      q('Zoning from the states rose.', 1958),
      q('Zoning fell in the war.', 1959),
    ];
    const themes = themesOf(zoning, { subject: subjectStems('zoning'), yearOf: (x) => x.year, minQuotes: 3 });
    expect(themes[0]!.title).toBe('Zoning laws');
  });

  it('weighs a few members as many: a broad word held by many passages does not outrank a specific phrase', () => {
    const labor = [
      ...Array.from({ length: 12 }, (_, i) => q(`Labor in our industries grew in ${i + 1} states.`, 1940 + i)),
      ...Array.from({ length: 4 }, (_, i) => q(`Labor won collective bargaining in plant ${i + 1}.`, 1937 + i)),
      ...Array.from({ length: 10 }, (_, i) => q(`Labor rested on day ${i + 1}.`, 1950 + i)),
    ];
    const company = new Map([
      ['industri', 0.8],
      ['collect bargain', 0.75],
    ]);
    const themes = themesOf(labor, { subject: subjectStems('labor'), company, yearOf: (x) => x.year, minQuotes: 3 });
    expect(themes[0]!.title).toBe('Collective bargaining');
    expect(themes[0]!.quotes).toHaveLength(4);
  });

  it('leaves out a quote no theme holds instead of filing it under one', () => {
    expect(themes.flatMap((t) => t.quotes).some((x) => x.year === 1956)).toBe(false);
  });

  it('keeps a theme of dated evidence to one period: a phrase said again decades later starts no shared section', () => {
    const spread = [q('The tariff commission reported on wool.', 1890), q('The tariff commission studied cotton.', 1892), q('A tariff commission was proposed once more.', 1970)];
    const others = [q('Free trade agreements open markets.', 1994), q('Free trade agreements help farmers.', 1996), q('Reciprocity treaties lower duties.', 1897), q('Wool growers ask for protection.', 1909)];
    const themes = themesOf([...spread, ...others], { subject: subjectStems('trade'), yearOf: (x) => x.year });
    const commission = themes.find((t) => t.title === 'Tariff commission');
    expect(commission!.quotes.map((x) => x.year)).toEqual([1890, 1892]);
  });
});

describe('theme titles', () => {
  it("lowercase a heading's capitals: a word in capitals is not a name", () => {
    const quotes = [
      q('IMMIGRATION RESTRICTION Restriction of immigration has proved sound.', 1925),
      q('IMMIGRATION RESTRICTION The policy of restriction should be kept.', 1927),
      q('Quotas of immigration are set by law.', 1929),
      q('The steamship companies bring immigrants.', 1905),
      q('Refugees seek immigration to our shores.', 1956),
      q('Illegal immigration must be stopped at the border.', 1996),
    ];
    const themes = themesOf(quotes, { subject: subjectStems('immigration'), yearOf: (x) => x.year });
    expect(themes.map((t) => t.title)).toContain('Immigration restriction');
  });

  it('extend a phrase that most of its quotes continue with a noun', () => {
    const qs = [q('Yellowstone National Park should be enlarged.', 1904), q('The Yellowstone National Park is a playground.', 1905)];
    expect(extended('Yellowstone National', qs)).toBe('Yellowstone National Park');
    expect(extended('Illegal immigration', [q('Illegal immigration is complicated.', 2008), q('Illegal immigration hurts wages.', 2019)])).toBe('Illegal immigration');
  });
});
