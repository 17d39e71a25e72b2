import { readFileSync } from 'node:fs';
import type { Passage } from './passage';

/**
 * Parse JSONL lines `{id, text, title?, url?}` into passages. Ids are kept verbatim (benchmarks
 * cite them as-is); a line without a usable id or text is an error naming its line number.
 */
export function parseJsonlPassages(content: string, origin = 'jsonl'): Passage[] {
  const passages: Passage[] = [];
  const seen = new Set<string>();
  const lines = content.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const passage = parseJsonlLine(lines[i]!, `${origin}:${i + 1}`);
    if (!passage) continue;
    if (seen.has(passage.id)) throw new Error(`${origin}:${i + 1}: duplicate id ${JSON.stringify(passage.id)}`);
    seen.add(passage.id);
    passages.push(passage);
  }
  return passages;
}

/** One JSONL line as a passage (undefined for a blank line); `where` (file:line) names it in errors. */
export function parseJsonlLine(raw: string, where: string): Passage | undefined {
  const line = raw.trim();
  if (!line) return undefined;
  let row: unknown;
  try {
    row = JSON.parse(line);
  } catch (e) {
    throw new Error(`${where}: not valid JSON (${(e as Error).message})`);
  }
  const r = row as Record<string, unknown>;
  const id = typeof r.id === 'string' || typeof r.id === 'number' ? String(r.id) : '';
  if (!id || typeof r.text !== 'string' || !r.text.trim()) throw new Error(`${where}: needs a string "id" and a non-empty "text"`);
  const passage: Passage = { id, title: typeof r.title === 'string' && r.title.trim() ? r.title.trim() : id, text: r.text };
  if (typeof r.url === 'string' && r.url) passage.url = r.url;
  return passage;
}

export function readJsonlPassages(path: string): Passage[] {
  return parseJsonlPassages(readFileSync(path, 'utf8'), path);
}
