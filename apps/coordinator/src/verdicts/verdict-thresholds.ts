/** Retries allowed per task; `attempt` is 0-based, so a failing result at attempt >= MAX_RETRIES is discarded. */
export const MAX_RETRIES = 2;
/** A finding relates to its task when claim + quote share at least this many term keys with objective/query/topic. */
export const MIN_RELEVANT_TERM_OVERLAP = 1;
/** TaskContext.correction max length (protocol). */
export const CORRECTION_MAX_CHARS = 2000;
