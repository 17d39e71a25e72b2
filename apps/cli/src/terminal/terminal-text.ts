import { stripVTControlCharacters } from 'node:util';

/**
 * Text from a run (topics, titles, sources, model output) on its way to a terminal: escape sequences, other
 * control characters and bidirectional overrides are removed, so it can neither move the cursor, retitle the
 * window, nor reorder what the operator reads. Line breaks and tabs stay.
 */
export function forTerminal(text: string): string {
  return stripVTControlCharacters(text).replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g, '');
}
