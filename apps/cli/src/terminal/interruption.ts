export interface Interruption {
  /** Aborted on the first Ctrl-C (SIGINT). */
  readonly signal: AbortSignal;
  /** `work`, or a rejection as soon as Ctrl-C is pressed (the work itself is left to its own signal). */
  race<T>(work: Promise<T>): Promise<T>;
}

/**
 * Ctrl-C as the CLI handles it: the first press aborts `signal`, so the caller can cancel its run and close the
 * in-process service; a second press, while that takes time, exits at once with 130.
 */
export function interruption(): Interruption {
  const controller = new AbortController();
  process.on('SIGINT', () => {
    if (controller.signal.aborted) process.exit(130);
    controller.abort(new Error('interrupted'));
  });
  const aborted = new Promise<never>((_, reject) => controller.signal.addEventListener('abort', () => reject(controller.signal.reason), { once: true }));
  aborted.catch(() => undefined);
  return {
    signal: controller.signal,
    race: <T>(work: Promise<T>) => {
      work.catch(() => undefined);
      return Promise.race([work, aborted]);
    },
  };
}
