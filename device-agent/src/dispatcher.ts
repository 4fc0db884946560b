import type { Logger } from "@edgeloop/edge-client/log";
import type {
  AcceptedFrame,
  ImageFit,
  ProgressFrame,
  ResultFrame,
  ToolCommandFrame,
  ToolOutcome,
} from "@edgeloop/protocol";
import { SHUTDOWN_REASON, type ToolExecutor } from "./executor/executor.js";
import type { ResultStore } from "./result-store.js";
import type { WorkQueue } from "./work-queue.js";

type Job = {
  tool: string;
  state: "queued" | "running";
  controller: AbortController;
  done: Promise<void>;
  /** the call's trace context (docs/tracing.md), on its log lines and passed to MCP servers */
  traceparent?: string;
  /** what the model is shown of an image: a tool fits its pictures to it (docs/images.md) */
  imageLimits?: ImageFit;
};

export type DispatcherOptions = {
  executor: Pick<ToolExecutor, "run" | "knows">;
  store: ResultStore;
  queue: WorkQueue;
  /**
   * best effort: the connection drops frames while offline; results are re-sent from the store.
   * `json`: the frame as JSON, when the store already made it.
   */
  send: (frame: ResultFrame | ProgressFrame | AcceptedFrame, json?: string) => void;
  log: Logger;
};

/**
 * Commands in, results out, each tool call at most once: a repeat of a running request attaches
 * to it, a repeat of a finished one gets the stored result, anything new waits for a slot.
 */
export class Dispatcher {
  private readonly jobs = new Map<string, Job>();
  private accepting = true;

  constructor(private readonly opts: DispatcherOptions) {}

  /** `hello.held`: everything with a stored result or still queued/running. */
  held(): string[] {
    return [...new Set([...this.opts.store.ids(), ...this.jobs.keys()])];
  }

  /** Results the hub has not acknowledged: sent again after every (re)connect. */
  unackedResults(): ResultFrame[] {
    return this.opts.store.unacked().map((r) => r.result);
  }

  get inFlight(): number {
    return this.jobs.size;
  }

  onCommand(frame: ToolCommandFrame): void {
    const id = frame.request_id;
    const { tool, parameters, timeout_ms, traceparent, image_limits } = frame.payload;
    const trace = traceparent ? { traceparent } : {};
    if (frame.payload.request_id !== id) {
      this.opts.log.warn("command request ids differ; using the outer one", {
        request_id: id,
        payload_request_id: frame.payload.request_id,
      });
    }
    const stored = this.opts.store.get(id);
    if (stored?.state === "done") {
      this.opts.log.info("duplicate command: sending the stored result", { request_id: id, tool, ...trace });
      this.opts.send(stored.result);
      return;
    }
    if (this.jobs.has(id)) {
      this.opts.log.info("duplicate command: attached to the running one", { request_id: id, tool, ...trace });
      return;
    }
    if (!this.accepting) {
      // Not started, so nothing is lost: the hub sends it again after the agent is back.
      this.opts.log.info("command ignored: shutting down", { request_id: id, tool });
      return;
    }
    // The hub now knows the call may run: if its result is late, the call's ending is
    // `outcome_unknown`, never `not_sent` (docs/architecture.md#call-endings).
    this.opts.send({ type: "accepted", request_id: id, by: "agent" });
    const controller = new AbortController();
    const job: Job = { tool, state: "queued", controller, done: Promise.resolve(), ...trace };
    if (image_limits) job.imageLimits = image_limits;
    this.jobs.set(id, job);
    if (!this.opts.executor.knows(tool)) {
      job.done = this.execute(id, job, parameters, timeout_ms);
      return;
    }
    job.done = this.opts.queue.run(id, () => this.execute(id, job, parameters, timeout_ms));
  }

  onCancel(requestId: string): void {
    const job = this.jobs.get(requestId);
    if (!job) {
      this.opts.log.debug("cancel for a request that is not running", { request_id: requestId });
      return;
    }
    if (job.state === "queued" && this.opts.queue.withdraw(requestId)) {
      this.complete(requestId, {
        status: "error",
        tool: job.tool,
        error: `Tool '${job.tool}' was cancelled before it started`,
        error_type: "cancelled",
        elapsed_ms: 0,
      });
      job.done = Promise.resolve();
      return;
    }
    job.controller.abort();
  }

  onAck(requestIds: string[]): void {
    try {
      this.opts.store.ack(requestIds);
    } catch (e) {
      this.opts.log.error("result store: ack not saved", { error: (e as Error).message });
    }
  }

  /**
   * Stop taking work. Queued commands are dropped unstarted (the hub re-sends them); running ones
   * get `graceMs` to finish, then are stopped and reported as cancelled.
   */
  async shutdown(graceMs: number): Promise<void> {
    this.accepting = false;
    for (const id of this.opts.queue.drainWaiting()) this.jobs.delete(id);
    const running = [...this.jobs.values()];
    if (running.length === 0) return;
    let timer: NodeJS.Timeout | undefined;
    const grace = new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs)));
    await Promise.race([Promise.all(running.map((j) => j.done)), grace]);
    clearTimeout(timer);
    for (const job of this.jobs.values()) job.controller.abort(SHUTDOWN_REASON);
    await Promise.all(running.map((j) => j.done));
  }

  private async execute(id: string, job: Job, parameters: Record<string, unknown>, timeoutMs: number): Promise<void> {
    job.state = "running";
    try {
      this.opts.store.begin(id, job.tool);
    } catch (e) {
      this.opts.log.error("result store: running marker not saved", { request_id: id, error: (e as Error).message });
    }
    let outcome: ToolOutcome;
    try {
      outcome = await this.opts.executor.run({
        requestId: id,
        tool: job.tool,
        parameters,
        timeoutMs,
        signal: job.controller.signal,
        ...(job.traceparent ? { traceparent: job.traceparent } : {}),
        ...(job.imageLimits ? { imageLimits: job.imageLimits } : {}),
        onProgress: (text) => this.opts.send({ type: "progress", request_id: id, content: [{ type: "text", text }] }),
      });
    } catch (e) {
      // The executor answers with values; a throw here is a bug in the agent, not in the tool.
      outcome = {
        status: "error",
        tool: job.tool,
        error: `device agent error: ${(e as Error).message}`,
        error_type: "execution_failed",
      };
    }
    this.complete(id, outcome);
  }

  private complete(id: string, outcome: ToolOutcome): void {
    const traceparent = this.jobs.get(id)?.traceparent;
    const frame = { type: "result", request_id: id, ...outcome } as ResultFrame;
    // In the journal before it is sent (a synchronous write; the fsync follows in the background):
    // if the agent dies right after, the restart re-sends this result. (Sending first and writing
    // alongside let a kill in that gap turn the result into an "interrupted" error after restart:
    // two different results for one request.)
    let json: string | undefined;
    try {
      json = this.opts.store.finish(frame).json;
    } catch (e) {
      this.opts.log.error("result store: result not saved", { request_id: id, error: (e as Error).message });
    }
    this.jobs.delete(id);
    this.opts.send(frame, json);
    // Logged after sending: a log line is a synchronous write, not worth a delay to the result.
    this.opts.log.info("command", {
      request_id: id,
      tool: outcome.tool,
      status: outcome.status,
      error_type: outcome.status === "error" ? outcome.error_type : null,
      elapsed_ms: outcome.elapsed_ms ?? 0,
      ...(traceparent ? { traceparent } : {}),
    });
  }
}
