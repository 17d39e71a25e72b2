/**
 * The date every prompt states: the model's own sense of "now" is its training cutoff, so "recent", "this year" and a
 * source's age are judged against this line instead (the reference research prompts open with the current date).
 */
export const currentDateLine = (now: Date = new Date()): string => `Today's date is ${now.toISOString().slice(0, 10)}.`;
