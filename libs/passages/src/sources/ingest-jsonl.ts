import type { Passage } from '../store/passage';
import { IngestSourceError, type NumberedLine, OPERATOR_SCOPE, type ReadScope, SourceFiles } from './source-files';

/**
 * Parse JSONL lines `{id, text, title?, url?}` into passages. Ids are kept verbatim (benchmarks
 * cite them as-is); a line without a usable id or text is an error naming its line number.
 */
export function parseJsonlPassages(content: string): Passage[] {
  return collectPassages(content.split('\n').map((line, i) => ({ n: i + 1, line })));
}

function collectPassages(lines: Iterable<NumberedLine>): Passage[] {
  const passages: Passage[] = [];
  const seen = new Set<string>();
  for (const { n, line } of lines) {
    const passage = parseJsonlLine(line, `line ${n}`);
    if (!passage) continue;
    if (seen.has(passage.id)) throw new IngestSourceError(`line ${n}: duplicate id (an earlier line has it)`, `line ${n}: duplicate id ${JSON.stringify(passage.id)}`);
    seen.add(passage.id);
    passages.push(passage);
  }
  return passages;
}

/**
 * One JSONL line as a passage (undefined for a blank line); `where` (the line) names it in errors, which say what is
 * wrong but never quote the line (JSON.parse's own message does: it is kept as the error's detail).
 */
export function parseJsonlLine(raw: string, where: string): Passage | undefined {
  const line = raw.trim();
  if (!line) return undefined;
  let row: unknown;
  try {
    row = JSON.parse(line);
  } catch (e) {
    const position = /at position (\d+)/.exec((e as Error).message);
    const at = position ? ` at column ${Number(position[1]) + raw.length - raw.trimStart().length + 1}` : /end of JSON/.test((e as Error).message) ? ': it ends early' : '';
    throw new IngestSourceError(`${where}: not valid JSON${at}`, `${where}: not valid JSON (${(e as Error).message})`);
  }
  const r = row as Record<string, unknown>;
  const id = typeof r.id === 'string' || typeof r.id === 'number' ? String(r.id) : '';
  if (!id || typeof r.text !== 'string' || !r.text.trim()) throw new IngestSourceError(`${where}: needs a string "id" and a non-empty "text"`);
  const passage: Passage = { id, title: typeof r.title === 'string' && r.title.trim() ? r.title.trim() : id, text: r.text };
  if (typeof r.url === 'string' && r.url) passage.url = r.url;
  return passage;
}

/** A JSONL file's passages, read in chunks (never the whole file at once) within `scope`. */
export function readJsonlPassages(path: string, scope: ReadScope = OPERATOR_SCOPE): Passage[] {
  return collectPassages(new SourceFiles(scope).linesSync(path));
}
