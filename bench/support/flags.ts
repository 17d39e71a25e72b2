/** A command line's flags: `--name value` for the names in `values`, a bare `--name` for the `switches`. */
export interface Flags {
  value(name: string): string | undefined;
  /** A positive integer, or undefined when the flag is absent. */
  int(name: string): number | undefined;
  has(name: string): boolean;
}

/** Reads `argv` against the flags a command knows; an unknown flag or a missing value is an error naming the usage. */
export function readFlags(argv: readonly string[], spec: { values: readonly string[]; switches?: readonly string[] }, usage: string): Flags {
  const values = new Map<string, string>();
  const switches = new Set<string>();
  for (let i = 0; i < argv.length; i++) {
    const k = argv[i]!;
    if (spec.switches?.includes(k)) switches.add(k);
    else if (spec.values.includes(k)) {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${k} needs a value\n${usage}`);
      values.set(k, v);
    } else throw new Error(`unknown argument ${k}\n${usage}`);
  }
  return {
    value: (name) => values.get(name),
    int: (name) => {
      const raw = values.get(name);
      if (raw === undefined) return undefined;
      const n = Number(raw);
      if (!Number.isInteger(n) || n < 1) throw new Error(`${name} must be a positive integer\n${usage}`);
      return n;
    },
    has: (name) => switches.has(name),
  };
}
