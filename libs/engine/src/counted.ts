/** "1 round", "3 rounds": a count with its noun in the number it needs. */
export const counted = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;
