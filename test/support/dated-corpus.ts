import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * A dated corpus of 32 passages, `gazette.jsonl` in `dir`: reports on the Kestrel River in eight years from 1820 to
 * 1999, four of them from the 1800s; tariffs appear only from 1900. Ids are `kg-<year>-<n>`.
 */
export function writeDatedCorpus(dir: string): string {
  const years = [1820, 1850, 1880, 1899, 1910, 1950, 1975, 1999];
  const lines = years.flatMap((y, d) =>
    [
      `In ${y} the salmon fishery on the Kestrel River landed its catch at Ossery, and the fishermen's cooperative sold it upriver.`,
      `The dam at Wend held back the Kestrel River floods of ${y}, though the spring flood still reached the lower town.`,
      `Barges and steamboats on the Kestrel River navigation carried grain and timber to the port of Ossery in ${y}.`,
      y >= 1900 ? `Tariffs on Kestrel River timber and grain exports were raised in ${y}, and the traders of Ossery protested the tariffs.` : `Trade on the Kestrel River in ${y} paid only the old toll at the Ossery bridge.`,
    ].map((text, i) => JSON.stringify({ id: `kg-${y}-${i + 1}`, title: `${y}, Kestrel Gazette ${d + 1}`, text })),
  );
  const file = join(dir, 'gazette.jsonl');
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

/** The year a passage of the dated corpus is from. */
export const yearOfSource = (id: string): number => Number(/^kg-(\d{4})-/.exec(id)?.[1]);
