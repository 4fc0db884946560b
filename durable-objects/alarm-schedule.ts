/**
 * A Durable Object's alarm, remembered in memory: the object is the only one that sets it, so
 * keeping it early enough after every step needs no storage read (only the first use after a
 * restart reads it).
 */
export class AlarmSchedule {
  /** undefined: not known yet in this instance; null: none set */
  private at: number | null | undefined = undefined;

  constructor(private readonly storage: DurableObjectStorage) {}

  /** Make the alarm go off no later than `next` (at once if that is past); never postpone it. */
  async atMost(next: number): Promise<void> {
    if (this.at === undefined) this.at = await this.storage.getAlarm();
    const now = Date.now();
    if (this.at === null || this.at > next || this.at < now) await this.set(Math.max(next, now));
  }

  async set(at: number): Promise<void> {
    this.at = at;
    await this.storage.setAlarm(at);
  }

  /** No alarm until the next `atMost` or `set`. */
  async clear(): Promise<void> {
    this.at = null;
    await this.storage.deleteAlarm();
  }

  /** The alarm went off, so none is set until the handler sets the next one. */
  fired(): void {
    this.at = null;
  }
}
