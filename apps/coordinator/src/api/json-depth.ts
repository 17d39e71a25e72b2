const OPEN = 0x5b; // [
const OPEN_OBJECT = 0x7b; // {
const CLOSE = 0x5d; // ]
const CLOSE_OBJECT = 0x7d; // }
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * How deep JSON text nests arrays and objects, read in one pass over its bytes without parsing it, stopping
 * as soon as it passes `max`. Brackets inside strings do not count. Malformed text is left for the parser.
 */
export function jsonDepthExceeds(text: Uint8Array, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) inString = true;
    else if (c === OPEN || c === OPEN_OBJECT) {
      if (++depth > max) return true;
    } else if (c === CLOSE || c === CLOSE_OBJECT) depth--;
  }
  return false;
}
