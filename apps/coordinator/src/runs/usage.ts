/** The coordinator adds usage records without mutating them: the engines' one definition of a sum. */
export { sumUsage as addUsage, inPhase } from '@orrery/engine';
