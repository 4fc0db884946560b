/**
 * The model's streamed text, gathered for up to `windowMs` before it is stored as one
 * `message_delta` event. Every stored event is a write and every write a commit (a disk flush when
 * local, a replicated write when deployed), and a model streams a few tokens per chunk: one event
 * per chunk cost a commit per token, while a live client is served as well by a few updates a second.
 */
export class DeltaBuffer {
  private text = "";
  private timer: ReturnType<typeof setTimeout> | null = null;

  /** `onDue` is called once `windowMs` after the first text that waits; it should `take()`. */
  constructor(
    private readonly windowMs: number,
    private readonly onDue: () => void,
  ) {}

  add(delta: string): void {
    if (!delta) return;
    this.text += delta;
    this.timer ??= setTimeout(() => {
      this.timer = null;
      this.onDue();
    }, this.windowMs);
  }

  /** Everything gathered so far ("" if nothing waits); the timer is stopped. */
  take(): string {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    const text = this.text;
    this.text = "";
    return text;
  }
}
