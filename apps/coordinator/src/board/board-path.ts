/** The control characters, a backslash or a slash inside one decoded segment: no board route names any of them. */
const UNSAFE_SEGMENT = /[\u0000-\u001f\u007f/\\]/;

/**
 * A path inside the board as its router matches it, decided once so that a check and the route agree: Express
 * matches without regard to letter case, with or without a trailing slash, and decodes `%xx` in parameters.
 * So: percent-escapes decoded, empty segments (`//`, a trailing `/`) dropped. Undefined for what no route could
 * mean: a malformed escape, an encoded slash or backslash, a control character, a `.` or `..` segment. Letter case
 * is kept (a static file's name is case-sensitive on disk); compare with `boardRoute`.
 */
export function canonicalBoardPath(path: string): string | undefined {
  const segments: string[] = [];
  for (const raw of path.split('/')) {
    if (raw === '') continue;
    let segment: string;
    try {
      segment = decodeURIComponent(raw);
    } catch {
      return undefined;
    }
    if (segment === '.' || segment === '..' || UNSAFE_SEGMENT.test(segment)) return undefined;
    segments.push(segment);
  }
  return `/${segments.join('/')}`;
}

/** The canonical path in the form the board's routes are compared in: lower case. */
export const boardRoute = (canonical: string) => canonical.toLowerCase();

/** The canonical path as a URL path again, each segment re-encoded, for the board's router to match. */
export const encodeBoardPath = (canonical: string) =>
  canonical
    .split('/')
    .map((s) => encodeURIComponent(s))
    .join('/');
