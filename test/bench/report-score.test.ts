import { describe, expect, it } from 'vitest';
import { sectionCoherent, themesNamed } from '../../bench/reports/report-score';

describe('reports benchmark: themes and coherent sections', () => {
  it('counts a theme named when a section title holds every word of one of its phrases', () => {
    const themes = [['chinese exclusion', 'chinese'], ['steamship companies'], ['quotas', 'restriction'], ['refugees']];
    expect(themesNamed(themes, ['1880–1889: Exclusion of Chinese laborers', 'Steamship companies (1900s)', 'Age'])).toBe(2);
    expect(themesNamed(themes, ['Restrictive immigration'])).toBe(1); // one stem: restrict
    expect(themesNamed(themes, ['Age', 'Hungary', 'Shores'])).toBe(0);
  });

  it('calls a section coherent when most of its quotes hold a word of its title', () => {
    expect(sectionCoherent('Steamship companies', ['the steamship companies bring immigrants', 'companies should be held to account', 'we welcome them'])).toBe(true);
    expect(sectionCoherent('Age', ['immigrants over 14 years of age', "let's get immigration reform done"])).toBe(false);
  });
});
