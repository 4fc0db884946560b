/**
 * At most `limit` jobs at once; the rest wait in arrival order (FIFO). A waiting job can be
 * withdrawn (cancel before it started) without ever running.
 */
export class WorkQueue {
  private running = 0;
  private readonly waiting: { key: string; start: () => void }[] = [];

  constructor(private readonly limit: number) {}

  get active(): number {
    return this.running;
  }

  get queued(): number {
    return this.waiting.length;
  }

  /** Resolves with the job's value once it has had its turn and finished. */
  run<T>(key: string, job: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const start = () => {
        this.running++;
        job()
          .then(resolve, reject)
          .finally(() => {
            this.running--;
            this.next();
          });
      };
      this.waiting.push({ key, start });
      this.next();
    });
  }

  /** Remove a job that has not started; true if it was waiting. Its promise never settles. */
  withdraw(key: string): boolean {
    const i = this.waiting.findIndex((w) => w.key === key);
    if (i === -1) return false;
    this.waiting.splice(i, 1);
    return true;
  }

  /** Forget every waiting job (shutdown): they never started, so re-running them later is safe. */
  drainWaiting(): string[] {
    return this.waiting.splice(0).map((w) => w.key);
  }

  private next(): void {
    while (this.running < this.limit && this.waiting.length > 0) this.waiting.shift()!.start();
  }
}
