import type { RequestClass } from '@orrery/protocol';

/**
 * The class a run is planned with. A lead that plans with a model decides it: the rules' class was advice, shown to it.
 * Without one, the rules decide, except that a straightforward class the rules were unsure of is not forced on a
 * plan the engine decomposed (it becomes breadth).
 */
export function planClass(rules: RequestClass, planned: RequestClass, leadDecides: boolean): RequestClass {
  if (leadDecides) return planned;
  const c = rules === 'straightforward' ? planned : rules;
  return c === 'straightforward' ? 'breadth' : c;
}
