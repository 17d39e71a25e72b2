import { stripVTControlCharacters } from 'node:util';

/** C0 and C1 controls but line breaks and tabs, and every bidirectional control (U+061C, U+200E/F, U+202A-E, U+2066-9). */
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]|\p{Bidi_Control}/gu;
/** What JSON.stringify leaves raw but a terminal acts on: DEL, C1 controls, bidi controls, and the line and paragraph separators. */
const UNSAFE_IN_JSON = /[\u007f-\u009f\u2028\u2029]|\p{Bidi_Control}/gu;

/**
 * Text from a run (topics, titles, sources, model output) on its way to a terminal: escape sequences, other
 * control characters and bidirectional controls are removed, so it can neither move the cursor, retitle the
 * window, nor reorder what the operator reads. Line breaks and tabs stay.
 */
export function forTerminal(text: string): string {
  return stripVTControlCharacters(text).replace(UNSAFE, '');
}

/**
 * A value as JSON for a terminal: the same data, with what JSON.stringify leaves raw and a terminal would act on
 * written as `\uXXXX` escapes. They can only occur inside strings, where JSON allows the escape, so a parser reads
 * the value back unchanged.
 */
export function jsonForTerminal(value: unknown): string {
  return JSON.stringify(value, null, 2).replace(UNSAFE_IN_JSON, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
