import type { ReportShape } from '@orrery/protocol';

/**
 * The shape of report a question asks for, read from its words (no corpus): a comparison of two or more
 * sides, a change over time, what documents say about something, or a survey of a subject. The coordinator
 * plans by it and puts it in the plan, whose tasks carry it to the spokes and the writer.
 */
export type { ReportShape, ReportShapeKind } from '@orrery/protocol';

/** Words that ask for a comparison; "and" then joins the sides. */
const COMPARISON_CUE = /\b(compar(e|es|ed|ing|ison)|contrast(s|ed|ing)?|differ(s|ed|ent|ence|ences|ently)?|distinguish(es|ed)?|similar(ity|ities|ly)?|alike|agree(d)?|disagree(d)?|versus|vs\.?)(?=\s|$|[,:;?])/i;
/** A connector between two sides, strongest first. */
const CONNECTORS = ['versus', 'vs.', 'vs', 'and', 'with', 'from', 'to'];
/** Words a side does not run past, to the left. */
const LEFT_STOP = new Set('how did do does is are was were what where when why between compare compared comparing contrast contrasted contrasting the difference differences in of did a an did'.split(' '));
/** Words a side does not run past, to the right. */
const RIGHT_STOP = new Set(
  (
    'differ differed differs different difference compare compared contrast contrasted agree agreed disagree disagreed ' +
    'in on about regarding concerning over when toward towards talk talked talks speak spoke spoken say said describe described ' +
    'view viewed see saw treat treated approach approached handle handled address addressed discuss discussed think thought ' +
    'write wrote use used frame framed present presented have has had do did does both each who which what for at as'
  ).split(' '),
);
/** Words that introduce what is talked about. */
const ABOUT = /\b(about|regarding|concerning|on|toward|towards|over|of|to)\s+(.+)$/i;
/** A framing the subject does not keep: "how they talked about", "their views of", "the way … talk about". */
const SUBJECT_FRAME = /^(how\s+\w+\s+(talk(ed|s)?|spoke|speak|thought|think|wrote|write)\s+(about|of|on)\s+|(the\s+)?(way|ways)\s+\w+\s+(talk(ed|s)?|spoke|speak)\s+(about|of)\s+|(their|his|her|its)\s+(views?|positions?|stances?|approach(es)?|attitudes?)\s+(on|of|to|toward|towards)\s+|the\s+(subject|question|issue|topic)\s+of\s+)/i;
/** A tail that names the change, not the subject: "changed over time", "evolved", and in "How did X change" the verb. */
const CHANGE_TAIL = /\s+(ha(s|ve)\s+)?(changed|evolved|shifted|developed|grown)(\s+(over|since|through|across|during|in)\s+.+)?$|\s+(over|since|through|across|during)\s+(time|history|the\s+.+|\d{4}.*)$/i;
const VERB_TAIL = /\s+(change|evolve|shift|develop|grow)(\s+(over|since|through|across|during|in)\s+.+)?$/i;
/**
 * A question about change: a participle or a trajectory ("changed", "over time", "the history of"), or the verb of
 * "How did X change". The noun alone names a subject: "climate change", "regime change".
 */
const CHANGE = /\b(over\s+time|over\s+the\s+(years|decades|centuries)|chang(ed|ing)|evol(ved|ving|ution)|shifted|history\s+of|through\s+(time|history)|trends?\s+in|from\s+\d{4}\s+to\s+\d{4}|(change|evolve|shift)\s+(over|since|through|across|during|from|between)\b)/i;
/**
 * "How did / does X …" asks how X went, its verb last ("How did talk of railroads change"), unless a framing verb
 * follows its subject ("How did presidents talk about regime change": what they talked about is "regime change").
 */
const asksHowXWent = (text: string): boolean =>
  /^how\s+(did|does|do|will|would|could|can|might)\s/i.test(text) &&
  !/^how\s+\w+\s+(?!the\s+way\b)(\S+\s+){1,3}?(?<!\b(the|a|an|this|that|their|his|her|its)\s)(talk|speak|discuss|address|describe|say|view|treat|approach|handle|think|write|see|frame|present|use)\b/i.test(text);
/**
 * A question in the passive names its subject between the auxiliary and the participle: "How is the Kestrel River
 * managed", "How have tariffs been justified", and, once a change tail is cut, "How has immigration".
 */
const PASSIVE_FRAME = /^how\s+(?:is|are|was|were|has|have|had)\s+(.+?)(?:\s+(?:been\s+)?\w+(?:ed|en|wn|ght|lt))?$/i;
/** "What do the documents / docs / notes / READMEs say about X?" */
const DOCUMENTS = /^(what|how)\s+(do|does|did)\s+(the\s+|my\s+|our\s+|these\s+)?(docs|documents|documentation|notes|files|readmes?|manuals?|guides?|pages|sources)\s+(say|said|tell|explain|describe|cover|mention)\s+(me\s+)?(about|of|on|regarding)?\s*(.+)$/i;

const clean = (s: string): string => s.replace(/[?.!]+$/, '').replace(/^["'“‘]|["'”’]$/g, '').replace(/['’]s$/i, '').trim();

/** The shape a question asks for. */
export function reportShape(topic: string): ReportShape {
  const text = topic.normalize('NFC').replace(/\s+/g, ' ').trim().replace(/[?!.]+$/, '');
  const docs = DOCUMENTS.exec(text);
  if (docs) return { kind: 'documents', sides: [], subject: clean(docs[8]!) };
  const cmp = comparison(text);
  if (cmp) return { kind: 'comparative', ...cmp };
  if (CHANGE.test(text) || (asksHowXWent(text) && /\s(change|evolve|shift)$/i.test(text))) return { kind: 'change', sides: [], subject: subjectOf(text) };
  return { kind: 'survey', sides: [], subject: subjectOf(text) };
}

/** The sides of a comparison and its subject, or null when the question compares nothing. */
function comparison(text: string): { sides: string[]; subject: string } | null {
  if (!COMPARISON_CUE.test(text)) return null;
  const words = [...text.matchAll(/[^\s,:;]+/g)].map((m) => ({ w: m[0], start: m.index, end: m.index + m[0].length }));
  const low = words.map((x) => x.w.toLowerCase().replace(/['’]s$/, ''));
  for (const c of CONNECTORS) {
    for (let i = 1; i < words.length - 1; i++) {
      if (low[i] !== c) continue;
      if ((c === 'with' || c === 'to') && !/\b(compar|contrast)/i.test(text.slice(0, words[i]!.start))) continue;
      if (c === 'from' && !/\bdiffer/i.test(low[i - 1] ?? '') && !/\bdiffer/i.test(text.slice(0, words[i]!.start))) continue;
      let a = i - 1;
      while (a - 1 >= 0 && i - a < 4 && !LEFT_STOP.has(low[a - 1]!) && !RIGHT_STOP.has(low[a - 1]!)) a--;
      let b = i + 1;
      while (b + 1 < words.length && b - i < 4 && !RIGHT_STOP.has(low[b + 1]!) && !LEFT_STOP.has(low[b + 1]!)) b++;
      const left = clean(text.slice(words[a]!.start, words[i - 1]!.end));
      const right = clean(text.slice(words[i + 1]!.start, words[b]!.end));
      if (!left || !right || LEFT_STOP.has(left.toLowerCase()) || RIGHT_STOP.has(right.toLowerCase())) continue;
      const rest = text.slice(words[b]!.end);
      const before = text.slice(0, words[a]!.start);
      return { sides: [left, right], subject: comparedSubject(rest, before) };
    }
  }
  return null;
}

/** What two sides are compared on: the words after the pair ("… differ in how they talked about war" → "war"). */
function comparedSubject(rest: string, before: string): string {
  let r = rest.replace(/^[\s,:;–—-]+/, '').replace(/^(differ(ed|s)?|compare[ds]?|contrast(ed|s)?|agree(d)?|disagree(d)?)\b\s*/i, '');
  r = r.replace(/^(in|on)\s+(how|the\s+way)\s+/i, 'how ');
  let m = SUBJECT_FRAME.exec(r);
  if (m) return clean(r.slice(m[0].length));
  m = ABOUT.exec(r);
  if (m) return clean(m[2]!.replace(SUBJECT_FRAME, ''));
  if (r.trim()) return clean(r.replace(/^(in|at|for)\s+/i, ''));
  // "Compare how presidents talked about war: Lincoln and FDR" — the subject stands before the pair.
  m = ABOUT.exec(before.replace(/[\s,:;]+$/, ''));
  return m ? clean(m[2]!) : '';
}

/**
 * What a topic is about, to name it in a sentence: a title topic as it is ("Hurricane Idalia"); a question cut
 * to what follows its framing verb ("the economy" in "How have presidents addressed the economy?"), without a
 * tail that names the change ("changed over time").
 */
export function subjectOf(topic: string): string {
  const t = topic.trim().replace(/[?.!]+$/, '');
  const m =
    /\b(?:talk(?:ed|s)?|address(?:ed|es)?|discuss(?:ed|es)?|sa(?:y|id|ys)|describ(?:e|ed|es)|view(?:ed|s)?|approach(?:ed|es)?|handl(?:e|ed|es)|deal(?:t|s)?|thought|think|spoke|spoken|speak|wr(?:ote|itten|ite)|mention(?:ed|s)?)\s+(?:about\s+|of\s+|on\s+|with\s+)?(.+)$/i.exec(t) ??
    // A noun that frames what was said: "the discussion of education", "the language about civil rights".
    /\b(?:discussion|language|talk|rhetoric|debate|attitudes?|thinking|coverage|mentions?)\s+(?:of|about|on|around|regarding|concerning)\s+(.+)$/i.exec(t);
  let core = (m?.[1] ?? t).trim().replace(CHANGE_TAIL, '').trim();
  // The bare verb is the change only where the question asks how something went, never in "climate change".
  if (asksHowXWent(t)) core = core.replace(VERB_TAIL, '').trim();
  if (!m) core = core.replace(/^(the\s+)?(history|evolution)\s+of\s+/i, '').replace(PASSIVE_FRAME, '$1');
  return core.length > 80 ? `${core.slice(0, 77)}...` : core;
}
