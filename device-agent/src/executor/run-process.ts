import { spawn } from "node:child_process";
import { performance } from "node:perf_hooks";
import { CappedBuffer } from "./capped-buffer.js";
import { StderrLines } from "./stderr-lines.js";

export type ProcessSpec = {
  command: string;
  args: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  stdin: string;
  timeoutMs: number;
  /** SIGTERM first, SIGKILL this long after */
  killGraceMs: number;
  outputCapBytes: number;
  signal?: AbortSignal;
  onProgress?: (text: string) => void;
};

export type CapturedText = { text: string; truncated: boolean; bytesTotal: number; bytesReturned: number };

export type ProcessOutcome =
  | {
      kind: "exited";
      /** null when a signal ended it */
      code: number | null;
      signal: NodeJS.Signals | null;
      /** set when the agent ended it */
      stoppedBy: "timeout" | "cancelled" | null;
      stdout: CapturedText;
      stderr: CapturedText;
      elapsedMs: number;
    }
  | { kind: "spawn_failed"; errno: string; message: string; elapsedMs: number };

/** After the binary exits, how long its leftover children may keep our pipes open. */
const DRAIN_AFTER_EXIT_MS = 1_000;

function captured(buf: CappedBuffer): CapturedText {
  const { text, bytesReturned } = buf.text();
  return { text, truncated: buf.truncated, bytesTotal: buf.bytesTotal, bytesReturned };
}

/** Signal the whole process group: the binary and everything it started. */
function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // ESRCH: the group is already gone
  }
}

/**
 * Runs one binary without a shell, in its own process group (detached), with a deadline and a
 * cancel signal that both end the whole group: SIGTERM, then SIGKILL after the grace period.
 */
export function runProcess(spec: ProcessSpec): Promise<ProcessOutcome> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  if (spec.signal?.aborted) {
    const empty = { text: "", truncated: false, bytesTotal: 0, bytesReturned: 0 };
    return Promise.resolve({
      kind: "exited",
      code: null,
      signal: null,
      stoppedBy: "cancelled",
      stdout: empty,
      stderr: empty,
      elapsedMs: 0,
    });
  }
  return new Promise((resolvePromise) => {
    const stdout = new CappedBuffer(spec.outputCapBytes);
    const stderr = new StderrLines(spec.outputCapBytes, spec.onProgress ?? (() => {}));
    let stoppedBy: "timeout" | "cancelled" | null = null;
    let exit: { code: number | null; signal: NodeJS.Signals | null } | null = null;
    let settled = false;
    const timers: NodeJS.Timeout[] = [];

    const child = spawn(spec.command, spec.args, {
      cwd: spec.cwd,
      env: spec.env,
      detached: true,
      stdio: ["pipe", "pipe", "pipe"],
    });

    const finish = (outcome: ProcessOutcome) => {
      if (settled) return;
      settled = true;
      for (const t of timers) clearTimeout(t);
      spec.signal?.removeEventListener("abort", onAbort);
      resolvePromise(outcome);
    };

    const stop = (why: "timeout" | "cancelled") => {
      if (stoppedBy || exit || child.pid === undefined) return;
      stoppedBy = why;
      signalGroup(child.pid, "SIGTERM");
      // Even if the binary itself exits on SIGTERM, a child of it may ignore the signal.
      timers.push(setTimeout(() => signalGroup(child.pid!, "SIGKILL"), spec.killGraceMs));
      // Last resort: a process that left our group (setsid) may still hold the pipes.
      timers.push(setTimeout(forceReport, spec.killGraceMs + DRAIN_AFTER_EXIT_MS));
    };
    const onAbort = () => stop("cancelled");
    spec.signal?.addEventListener("abort", onAbort);
    timers.push(setTimeout(() => stop("timeout"), spec.timeoutMs));

    child.stdout.on("data", (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on("data", (chunk: Buffer) => stderr.push(chunk));
    // A binary that never reads stdin and exits makes our write fail with EPIPE: that is fine.
    child.stdin.on("error", () => {});
    child.stdin.end(spec.stdin);

    child.on("error", (err: NodeJS.ErrnoException) => {
      if (child.pid === undefined) {
        finish({ kind: "spawn_failed", errno: err.code ?? "UNKNOWN", message: err.message, elapsedMs: elapsed() });
      }
    });

    const report = () => {
      stderr.end();
      finish({
        kind: "exited",
        code: exit?.code ?? null,
        signal: exit?.signal ?? null,
        stoppedBy,
        stdout: captured(stdout),
        stderr: captured(stderr.kept),
        elapsedMs: elapsed(),
      });
    };

    const forceReport = () => {
      child.stdout.destroy();
      child.stderr.destroy();
      report();
    };

    child.on("exit", (code, signal) => {
      exit = { code, signal };
      // A background child of the tool (`sleep 100 &`) may hold our pipes open; do not wait for it
      // forever. When the agent stopped the tool, the SIGKILL timer ends such children anyway.
      if (!stoppedBy) timers.push(setTimeout(forceReport, DRAIN_AFTER_EXIT_MS));
    });
    child.on("close", (code, signal) => {
      exit ??= { code, signal };
      report();
    });
  });
}
