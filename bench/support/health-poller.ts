/**
 * Asks a coordinator's `/healthz` every `everyMs` and keeps the longest answer: a process whose event loop is held by
 * synchronous work answers late, so this is the longest stall a probe (or any other request) saw, as seen from outside.
 */
export class HealthPoller {
  private longest = 0;
  private running = true;
  private readonly loop: Promise<void>;

  constructor(
    private readonly url: string,
    everyMs = 20,
  ) {
    this.loop = (async () => {
      while (this.running) {
        const t0 = performance.now();
        await fetch(`${this.url}/healthz`).then((r) => r.arrayBuffer(), () => undefined);
        this.longest = Math.max(this.longest, performance.now() - t0);
        await new Promise((r) => setTimeout(r, everyMs));
      }
    })();
  }

  /** The longest answer since the last call, in ms; starts the next interval. */
  take(): number {
    const out = this.longest;
    this.longest = 0;
    return Math.round(out);
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.loop;
  }
}
