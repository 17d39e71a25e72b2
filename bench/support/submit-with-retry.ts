import { OrreryHttpError } from '@orrery/cli/dist/client/orrery-client';

/**
 * A submission retried while the service answers 503 (a loaded machine's Redis or queue bound refuses rather than
 * queue), with a growing pause, as the CLI's user would retry.
 */
export async function submitWithRetry<T>(submit: () => Promise<T>, tries = 10): Promise<T> {
  for (let i = 1; ; i++) {
    try {
      return await submit();
    } catch (err) {
      if (!(err instanceof OrreryHttpError && err.status === 503) || i >= tries) throw err;
      await new Promise((r) => setTimeout(r, 500 * i));
    }
  }
}
