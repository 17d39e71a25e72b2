import type { AnswerForm, RequestClass } from '@orrery/protocol';
import { classifyRequest } from './classify-request';
import { reportShape } from './report-shape';

/**
 * What the rules read from a question's words, offered to a lead that plans with a model: its class, the form
 * of answer it seems to ask for, and its language. Advice only: the lead's own plan decides.
 */
export interface AnswerAdvice {
  class: RequestClass;
  confidence: number;
  form: AnswerForm;
  /** BCP 47 code of the question's language; 'und' when the words do not tell. */
  language: string;
}

/** The form a question's words ask for: a comparison a table, a change over time a chronology, one fact an answer first. */
export function adviseForm(topic: string, cls: RequestClass = classifyRequest(topic).class): AnswerForm {
  const shape = reportShape(topic);
  if (shape.kind === 'comparative') return 'comparison-table';
  if (shape.kind === 'change') return 'chronology';
  return cls === 'straightforward' ? 'direct-answer' : 'analysis';
}

export function adviseAnswer(topic: string): AnswerAdvice {
  const c = classifyRequest(topic);
  return { class: c.class, confidence: c.confidence, form: adviseForm(topic, c.class), language: questionLanguage(topic) };
}

/** Scripts that name their language outright. */
const SCRIPTS: Array<[RegExp, string]> = [
  [/[\u3040-\u30ff]/, 'ja'],
  [/[\uac00-\ud7af]/, 'ko'],
  [/[\u4e00-\u9fff]/, 'zh'],
  [/[\u0400-\u04ff]/, 'ru'],
  [/[\u0600-\u06ff]/, 'ar'],
  [/[\u0590-\u05ff]/, 'he'],
  [/[\u0370-\u03ff]/, 'el'],
  [/[\u0900-\u097f]/, 'hi'],
  [/[\u0e00-\u0e7f]/, 'th'],
];

/** Short words each Latin-script language uses constantly and the others seldom do. */
const STOPWORDS: Record<string, string[]> = {
  en: 'the of and is are what how why which who when does did was were in to a an for with between than'.split(' '),
  fr: 'le la les des du de et est sont quel quelle quels quelles comment pourquoi qui quand entre une un pour avec en au aux ont été'.split(' '),
  de: 'der die das und ist sind was wie warum welche welcher wer wann zwischen ein eine für mit den dem des hat haben wurde'.split(' '),
  es: 'el la los las de del y es son qué cómo por porqué cuál cuáles quién cuándo entre una un para con en fue han'.split(' '),
  it: 'il lo la gli le di del della e è sono che come perché quale quali chi quando tra fra una un per con in ha hanno'.split(' '),
  pt: 'o a os as de do da e é são que como por qual quais quem quando entre uma um para com em foi têm'.split(' '),
  nl: 'de het een en is zijn wat hoe waarom welke wie wanneer tussen voor met van in heeft hebben werd'.split(' '),
};
const ACCENTS: Record<string, RegExp> = { fr: /[àâçéèêëîïôûùüÿœ]/i, de: /[äöüß]/i, es: /[ñáéíóú¿¡]/i, pt: /[ãõçáéíóúâê]/i, it: /[àèéìòù]/i };

/**
 * The language a question is written in, by its script or, in Latin script, by its commonest short words (accents
 * break ties). Good enough to tell a writer which language to answer in when the lead's plan did not say.
 */
export function questionLanguage(text: string): string {
  for (const [re, lang] of SCRIPTS) if (re.test(text)) return lang;
  const words = text.toLowerCase().normalize('NFC').match(/[\p{L}']+/gu) ?? [];
  if (!words.length) return 'und';
  let best = 'und';
  let top = 0;
  for (const [lang, list] of Object.entries(STOPWORDS)) {
    const set = new Set(list);
    const score = words.filter((w) => set.has(w) || set.has(w.replace(/^[ldjmnstc]'/, ''))).length + (ACCENTS[lang]?.test(text) ? 0.5 : 0) + (/^[ldjqu]'|^qu'/.test(words.join(' ')) && lang === 'fr' ? 0.5 : 0);
    if (score > top) [best, top] = [lang, score];
  }
  return top > 0 ? best : 'en';
}

/** A language's English name ("French"), for a prompt; the code itself when the runtime does not know it. */
export function languageName(code: string): string {
  try {
    return new Intl.DisplayNames(['en'], { type: 'language' }).of(code) ?? code;
  } catch {
    return code;
  }
}
