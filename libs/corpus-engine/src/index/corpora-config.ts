export interface CorpusSpec {
  name: string;
  path: string;
}

const NAME = /^[a-z0-9][a-z0-9_-]{0,63}$/i;

/**
 * Parse `CORPORA=name=path,name2=path2`. Whitespace around entries is ignored; a malformed entry or an
 * invalid or repeated name is an error that names the entry.
 */
export function parseCorporaSpec(spec: string | undefined): CorpusSpec[] {
  if (!spec || !spec.trim()) return [];
  const out: CorpusSpec[] = [];
  for (const raw of spec.split(',')) {
    const entry = raw.trim();
    if (!entry) continue;
    const eq = entry.indexOf('=');
    if (eq <= 0 || eq === entry.length - 1) throw new Error(`CORPORA entry ${JSON.stringify(entry)} must look like name=path`);
    const name = entry.slice(0, eq).trim();
    const path = entry.slice(eq + 1).trim();
    if (!NAME.test(name)) throw new Error(`CORPORA name ${JSON.stringify(name)} must be letters, digits, - and _`);
    if (out.some((c) => c.name === name)) throw new Error(`CORPORA names ${JSON.stringify(name)} twice`);
    out.push({ name, path });
  }
  return out;
}
