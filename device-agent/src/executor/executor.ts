import type { ErrorType, ImageFit, ToolOutcome } from "@edgeloop/protocol";
import type { SandboxMode } from "../config.js";
import { type BwrapStatus, bwrapArgs } from "../sandbox/bubblewrap.js";
import { checkCommand, type DenyRule } from "../sandbox/deny-list.js";
import { checkExecutable } from "../skills/find-executable.js";
import type { LoadedTool } from "../skills/loaded-tool.js";
import { missingRequired, parametersToArgv } from "./argv.js";
import { parseContentOutput } from "./content-output.js";
import { errorMessageFromStderr, errorTypeForExit } from "./exit-codes.js";
import { type CapturedText, type ProcessOutcome, runProcess } from "./run-process.js";
import { type ToolEnvBase, toolEnv, toolEnvBase } from "./tool-env.js";

export type ExecutorOptions = {
  tools: ReadonlyMap<string, LoadedTool>;
  workspace: string;
  outputCapBytes: number;
  killGraceMs: number;
  sandboxing: SandboxMode;
  bwrap: BwrapStatus;
  denyRules: readonly DenyRule[];
  toolEnv: Record<string, string>;
  /** never readable inside a sandbox: the result store, the config file */
  hiddenPaths: string[];
  /** the environment tools inherit (default process.env); read once, when the executor is built */
  baseEnv?: NodeJS.ProcessEnv;
};

export type ToolCall = {
  requestId: string;
  tool: string;
  parameters: Record<string, unknown>;
  timeoutMs: number;
  signal?: AbortSignal;
  onProgress?: (text: string) => void;
  /** the call's W3C trace context from the command, passed on to an MCP server */
  traceparent?: string;
  /** the model's image limits from the command: the tool fits its pictures to them */
  imageLimits?: ImageFit;
};

/** The abort reason the agent uses when it stops running tools on SIGTERM. */
export const SHUTDOWN_REASON = "shutdown";

type ErrorOutcome = Extract<ToolOutcome, { status: "error" }>;

function fail(tool: string, error_type: ErrorType, error: string, extra: Partial<ErrorOutcome> = {}): ErrorOutcome {
  return { status: "error", tool, error, error_type, ...extra };
}

function truncation(stdout: CapturedText) {
  return stdout.truncated
    ? { truncated: true, bytes_total: stdout.bytesTotal, bytes_returned: stdout.bytesReturned }
    : {};
}

/** Runs a command's tool: the checks before spawning, the process, and the report it becomes. */
export class ToolExecutor {
  private readonly envBase: ToolEnvBase;

  constructor(private readonly opts: ExecutorOptions) {
    this.envBase = toolEnvBase(opts.baseEnv ?? process.env, opts.toolEnv);
  }

  /** The timeout a command actually gets: what the hub asked, never above the tool's maximum. */
  effectiveTimeout(tool: LoadedTool, requested: number): number {
    return Math.min(requested, tool.manifest.max_timeout_ms);
  }

  async run(call: ToolCall): Promise<ToolOutcome> {
    const tool = this.opts.tools.get(call.tool);
    if (!tool) {
      const available = [...this.opts.tools.keys()].sort().join(", ") || "none";
      return fail(call.tool, "not_found", `Tool '${call.tool}' not found. Available tools: ${available}.`);
    }
    const name = tool.manifest.name;
    const missing = missingRequired(call.parameters, tool.manifest.parameters);
    if (missing.length > 0) {
      const required = tool.manifest.parameters.required.join(", ");
      return fail(
        name,
        "invalid_params",
        `Invalid parameters for '${name}': missing ${missing.map((m) => `'${m}'`).join(", ")}. Required: [${required}].`,
      );
    }
    const command = call.parameters.command;
    if (tool.manifest.permissions.includes("shell") && typeof command === "string") {
      const check = checkCommand(command, this.opts.denyRules);
      if (check.denied) {
        return fail(name, "permission_denied", `Command refused by the agent's deny-list (rule ${check.rule}).`);
      }
    }
    const sandboxed =
      tool.manifest.sandboxing === "bubblewrap" && this.opts.sandboxing !== "none" && this.opts.bwrap.usable;
    // The binary was checked at load time, but a skill update or a cleanup may have removed it
    // since. Run directly, a failed spawn says so (and is explained in `report`); inside bwrap it
    // would be bwrap's own error, so that path checks first.
    if (sandboxed) {
      const missing = this.missingBinary(tool);
      if (missing) return missing;
    }

    const timeoutMs = this.effectiveTimeout(tool, call.timeoutMs);
    const argv = parametersToArgv(call.parameters, tool.manifest.parameters);
    const spawnCommand = sandboxed && this.opts.bwrap.usable ? this.opts.bwrap.path : tool.binaryPath;
    const spawnArgs = sandboxed
      ? [
          ...bwrapArgs({
            workspace: this.opts.workspace,
            skillDir: tool.skillDir,
            network: tool.manifest.permissions.includes("network"),
            hide: this.opts.hiddenPaths,
          }),
          "--",
          tool.binaryPath,
          ...argv,
        ]
      : argv;

    const outcome = await runProcess({
      command: spawnCommand,
      args: spawnArgs,
      cwd: this.opts.workspace,
      env: toolEnv(this.envBase, {
        workspace: this.opts.workspace,
        requestId: call.requestId,
        tool: name,
        timeoutMs,
        outputCapBytes: this.opts.outputCapBytes,
        ...(call.imageLimits ? { imageLimits: call.imageLimits } : {}),
      }),
      stdin: JSON.stringify(call.parameters),
      timeoutMs,
      killGraceMs: this.opts.killGraceMs,
      outputCapBytes: this.opts.outputCapBytes,
      signal: call.signal,
      onProgress: call.onProgress,
    });
    return this.report(tool, timeoutMs, outcome, call.signal?.reason);
  }

  /** Unknown tools are answered at once, without waiting for a slot in the queue. */
  knows(tool: string): boolean {
    return this.opts.tools.has(tool);
  }

  /** The error for a binary that is gone or lost its execute bit since loading, or null. */
  private missingBinary(tool: LoadedTool): ErrorOutcome | null {
    const name = tool.manifest.name;
    const exe = checkExecutable(tool.binaryPath);
    if (exe.ok) return null;
    return exe.reason === "not_executable"
      ? fail(name, "permission_denied", `Tool '${name}' binary is not executable: ${tool.binaryPath}`)
      : fail(name, "not_found", `Tool '${name}' binary not found: ${tool.binaryPath}`);
  }

  private report(tool: LoadedTool, timeoutMs: number, outcome: ProcessOutcome, signalReason: unknown): ToolOutcome {
    const name = tool.manifest.name;
    if (outcome.kind === "spawn_failed") {
      const missing = this.missingBinary(tool);
      if (missing) return { ...missing, elapsed_ms: outcome.elapsedMs };
      const type: ErrorType =
        outcome.errno === "ENOENT"
          ? "not_found"
          : outcome.errno === "EACCES"
            ? "permission_denied"
            : "execution_failed";
      return fail(name, type, `Tool '${name}' could not be started: ${outcome.message}`, {
        elapsed_ms: outcome.elapsedMs,
      });
    }
    const { stdout, stderr, elapsedMs } = outcome;
    const common = { elapsed_ms: elapsedMs, stderr: stderr.text };
    if (outcome.stoppedBy === "timeout") {
      return fail(name, "timeout", `Tool '${name}' timed out after ${timeoutMs}ms`, common);
    }
    if (outcome.stoppedBy === "cancelled") {
      const why = signalReason === SHUTDOWN_REASON ? " because the device agent is shutting down" : "";
      return fail(name, "cancelled", `Tool '${name}' was cancelled${why}`, common);
    }
    if (outcome.code === null) {
      return fail(name, "execution_failed", `Tool '${name}' was killed by ${outcome.signal ?? "a signal"}`, common);
    }
    if (outcome.code !== 0) {
      const error = errorMessageFromStderr(
        stderr.text,
        outcome.code,
        `Tool '${name}' exited with code ${outcome.code}`,
      );
      return fail(name, errorTypeForExit(outcome.code), error, {
        ...common,
        exit_code: outcome.code,
        ...truncation(stdout),
      });
    }
    if (tool.output === "content") {
      if (stdout.truncated) {
        return fail(
          name,
          "execution_failed",
          `Tool '${name}' output exceeded the agent's ${stdout.bytesReturned}-byte cap (${stdout.bytesTotal} bytes)`,
          { ...common, exit_code: 0, ...truncation(stdout) },
        );
      }
      const parsed = parseContentOutput(stdout.text);
      if (!parsed.ok) {
        return fail(name, "execution_failed", `Tool '${name}' printed invalid content JSON: ${parsed.error}`, {
          ...common,
          exit_code: 0,
        });
      }
      return {
        status: "success",
        tool: name,
        result: parsed.value.result,
        stderr: stderr.text,
        exit_code: 0,
        elapsed_ms: elapsedMs,
        content: parsed.value.content,
      };
    }
    return {
      status: "success",
      tool: name,
      result: stdout.text,
      stderr: stderr.text,
      exit_code: 0,
      elapsed_ms: elapsedMs,
      ...truncation(stdout),
    };
  }
}
