/**
 * A remote MCP call's time limit that stops while the server waits for a person: a question may
 * wait minutes (`elicitation_timeout_secs`), and that is not the server being slow. `onTimeout`
 * runs once, when the call has used `limitMs` of its own time.
 */
export class CallClock {
  private left: number;
  private startedAt = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private paused = 0;
  private done = false;

  constructor(
    limitMs: number,
    private readonly onTimeout: () => void,
    private readonly now: () => number = Date.now,
  ) {
    this.left = limitMs;
    this.run();
  }

  /** Stops the clock (nested pauses stop it until the last one resumes). */
  pause(): void {
    if (this.done || this.paused++ > 0) return;
    clearTimeout(this.timer);
    this.left -= this.now() - this.startedAt;
  }

  resume(): void {
    if (this.done || this.paused === 0 || --this.paused > 0) return;
    this.run();
  }

  stop(): void {
    this.done = true;
    clearTimeout(this.timer);
  }

  private run(): void {
    this.startedAt = this.now();
    this.timer = setTimeout(
      () => {
        this.done = true;
        this.onTimeout();
      },
      Math.max(0, this.left),
    );
  }
}
