import { describe, expect, it } from 'vitest';
import { planClass } from './plan-class';

describe('planClass', () => {
  it("a lead's own class stands over the rules' advice", () => {
    // The reference design's own depth-first example, which the English rules read as straightforward.
    expect(planClass('straightforward', 'depth', true)).toBe('depth');
    expect(planClass('breadth', 'straightforward', true)).toBe('straightforward');
    expect(planClass('depth', 'breadth', true)).toBe('breadth');
  });

  it('without a lead, the rules decide and an unsure straightforward becomes breadth', () => {
    expect(planClass('depth', 'breadth', false)).toBe('depth');
    expect(planClass('straightforward', 'straightforward', false)).toBe('breadth');
    expect(planClass('straightforward', 'depth', false)).toBe('depth');
  });
});
