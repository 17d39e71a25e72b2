import { describe, expect, it } from 'vitest';
import { adviseAnswer, adviseForm, languageName, questionLanguage } from './answer-advice';

describe('answer advice', () => {
  it('reads the language of a question', () => {
    expect(questionLanguage('Quelle est la capitale de l’Australie et pourquoi a-t-elle été choisie ?')).toBe('fr');
    expect(questionLanguage('Wie hat sich die Energiepolitik in Deutschland seit 2000 verändert?')).toBe('de');
    expect(questionLanguage('¿Cuál es la población de Madrid?')).toBe('es');
    expect(questionLanguage('What is the population of Tokyo?')).toBe('en');
    expect(questionLanguage('東京の人口は何人ですか')).toBe('ja');
    expect(languageName('fr')).toBe('French');
  });

  it('advises the form the question asks for', () => {
    expect(adviseForm('Compare PostgreSQL and MySQL for write-heavy workloads')).toBe('comparison-table');
    expect(adviseForm('How has US immigration policy changed since 1965?')).toBe('chronology');
    expect(adviseForm('When did the Berlin Wall fall?')).toBe('direct-answer');
    expect(adviseAnswer('Overview of renewable energy policy in Europe').form).toBe('analysis');
  });
});
