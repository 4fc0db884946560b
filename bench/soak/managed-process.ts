/**
 * One of the soak's long-lived processes (an agent, the bridge): started, killed with SIGKILL,
 * frozen (SIGSTOP) and thawed, started again with the same arguments (so on the same state), its
 * output from every run appended to a log file that outlives the run.
 */
import { appendFileSync } from "node:fs";
import { join } from "node:path";
import { type Child, startChild } from "../../test/helpers/processes.js";

export class ManagedProcess {
  private child: Child | null = null;
  private frozen = false;
  starts = 0;

  constructor(
    readonly name: string,
    private readonly cmd: string,
    private readonly args: string[],
    private readonly logDir: string,
  ) {}

  get pid(): number | null {
    return this.child?.proc.pid ?? null;
  }

  get running(): boolean {
    const c = this.child;
    return c !== null && c.proc.exitCode === null && c.proc.signalCode === null;
  }

  get isFrozen(): boolean {
    return this.frozen;
  }

  start(): void {
    if (this.running) return;
    this.starts++;
    appendFileSync(this.logFile, `\n=== start ${this.starts} at ${new Date().toISOString()} ===\n`);
    this.child = startChild(this.cmd, this.args, { name: this.name });
  }

  /** SIGKILL the process (its group: the agent's tools run in their own groups and live on). */
  async kill(): Promise<void> {
    await this.end("SIGKILL");
  }

  async stop(): Promise<void> {
    if (this.frozen) this.thaw();
    await this.end("SIGTERM");
  }

  freeze(): void {
    if (!this.running || this.frozen) return;
    process.kill(-this.pid!, "SIGSTOP");
    this.frozen = true;
  }

  thaw(): void {
    if (!this.frozen) return;
    this.frozen = false;
    if (this.running) process.kill(-this.pid!, "SIGCONT");
  }

  output(): string {
    return this.child?.output() ?? "";
  }

  private get logFile(): string {
    return join(this.logDir, `${this.name}.log`);
  }

  private async end(signal: NodeJS.Signals): Promise<void> {
    const c = this.child;
    if (!c) return;
    this.frozen = false;
    // A stopped process does not act on SIGTERM until continued; SIGKILL works regardless.
    if (signal !== "SIGKILL") {
      try {
        process.kill(-c.proc.pid!, "SIGCONT");
      } catch {
        // already gone
      }
    }
    await c.stop(signal);
    appendFileSync(this.logFile, `${c.output()}\n=== ${signal} at ${new Date().toISOString()} ===\n`);
    this.child = null;
  }
}
