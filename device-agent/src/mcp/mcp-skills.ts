import type { Logger } from "@edgeloop/edge-client/log";
import type { FilteredTool, SkillManifest, ToolOutcome } from "@edgeloop/protocol";
import type { SandboxMode } from "../config.js";
import type { ToolCall, ToolExecutor } from "../executor/executor.js";
import { toolEnvBase } from "../executor/tool-env.js";
import { type BwrapStatus, bwrapArgs } from "../sandbox/bubblewrap.js";
import { checkCommand, type DenyRule } from "../sandbox/deny-list.js";
import type { LoadedSkills } from "../skills/load-skills.js";
import type { McpDeclaration } from "../skills/loaded-tool.js";
import type { DeviceQuestions } from "./device-questions.js";
import { callMcpTool } from "./mcp-call.js";
import { buildMcpManifest, type McpManifest } from "./mcp-manifest.js";
import { substitute } from "./mcp-section.js";
import { McpServer } from "./mcp-server.js";
import { serverReadOnlyPaths } from "./server-binds.js";
import { McpToolNames } from "./tool-names.js";

export type McpSkillsOptions = {
  loaded: LoadedSkills;
  workspace: string;
  sandboxing: SandboxMode;
  bwrap: BwrapStatus;
  /** never readable inside a sandbox: the result store, the config file */
  hiddenPaths: string[];
  toolEnv: Record<string, string>;
  baseEnv: NodeJS.ProcessEnv;
  denyRules: readonly DenyRule[];
  outputCapBytes: number;
  log: Logger;
  restartMinMs?: number;
  restartMaxMs?: number;
  /** where the servers' questions go (mcp-server.ts); none over MQTT, which has no frame for them */
  questions?: DeviceQuestions;
};

export type ToolRunner = Pick<ToolExecutor, "run" | "knows">;

/**
 * The skills' MCP servers as the rest of the agent sees them: their tools merged into the
 * manifest (`skills()`, `filtered()`), a change callback for the manifest update frame, and an
 * executor that sends MCP tools to their server and everything else to the binary executor.
 * Loaded by agent.ts only when a skill declares `[mcp]`, so agents without one never load the SDK.
 */
export class McpSkills {
  private readonly servers: McpServer[];
  private readonly names = new McpToolNames();
  private readonly takenNames: ReadonlySet<string>;
  private manifest: McpManifest;
  private readonly listeners: (() => void)[] = [];
  private lastAnnounced = "";
  private readonly loggedDrops = new Set<string>();

  constructor(private readonly opts: McpSkillsOptions) {
    this.takenNames = new Set(opts.loaded.tools.keys());
    const env = toolEnvBase(opts.baseEnv, opts.toolEnv);
    this.servers = opts.loaded.mcp.map(
      (declaration) =>
        new McpServer({
          declaration,
          ...this.spawnPlan(declaration),
          cwd: opts.workspace,
          env: this.serverEnv(env, declaration),
          log: opts.log,
          onToolsChanged: () => this.rebuild(),
          ...(opts.restartMinMs !== undefined ? { restartMinMs: opts.restartMinMs } : {}),
          ...(opts.restartMaxMs !== undefined ? { restartMaxMs: opts.restartMaxMs } : {}),
          ...(opts.questions ? { questions: opts.questions } : {}),
        }),
    );
    this.manifest = this.build();
  }

  /** Every server's first start (each bounded by its startup_timeout_ms); failures restart on their own. */
  async start(): Promise<void> {
    await Promise.all(this.servers.map((s) => s.start()));
    this.rebuild();
    this.lastAnnounced = this.signature();
  }

  skills(): SkillManifest[] {
    return this.manifest.skills;
  }

  filtered(): FilteredTool[] {
    return [...this.opts.loaded.filtered, ...this.manifest.filtered];
  }

  /** Called whenever what `skills()`/`filtered()` return has changed since the last announcement. */
  onChange(listener: () => void): void {
    this.listeners.push(listener);
  }

  executorOver(inner: ToolRunner): ToolRunner {
    return {
      knows: (tool) => this.manifest.routes.has(tool) || inner.knows(tool),
      run: (call) => (this.manifest.routes.has(call.tool) ? this.run(call) : inner.run(call)),
    };
  }

  async stop(): Promise<void> {
    await Promise.all(this.servers.map((s) => s.stop()));
  }

  private async run(call: ToolCall): Promise<ToolOutcome> {
    const route = this.manifest.routes.get(call.tool)!;
    const command = call.parameters.command;
    if (route.manifest.permissions.includes("shell") && typeof command === "string") {
      const check = checkCommand(command, this.opts.denyRules);
      if (check.denied) {
        const error = `Command refused by the agent's deny-list (rule ${check.rule}).`;
        return { status: "error", tool: call.tool, error, error_type: "permission_denied" };
      }
    }
    const server = this.servers.find((s) => s.skill === route.skill)!;
    return callMcpTool(server, route, call, { outputCapBytes: this.opts.outputCapBytes });
  }

  private rebuild(): void {
    this.manifest = this.build();
    for (const d of this.manifest.dropped) {
      const key = `${d.skill}\n${d.tool}\n${d.dropped.join("\n")}`;
      if (this.loggedDrops.has(key)) continue;
      this.loggedDrops.add(key);
      this.opts.log.info("mcp tool schema cut down to what the validator checks", {
        skill: d.skill,
        tool: d.tool,
        advertised_as: d.name,
        dropped: d.dropped,
      });
    }
    const signature = this.signature();
    if (this.lastAnnounced === "" || signature === this.lastAnnounced) return;
    this.lastAnnounced = signature;
    for (const listener of this.listeners) listener();
  }

  private build(): McpManifest {
    return buildMcpManifest(
      this.opts.loaded.skills,
      this.takenNames,
      this.servers.map((s) => ({
        declaration: s.declaration,
        tools: s.listed ? s.tools : null,
        down: s.lastError,
      })),
      this.names,
    );
  }

  private signature(): string {
    return JSON.stringify([this.manifest.skills, this.manifest.filtered]);
  }

  /** The server as it runs: inside bwrap when its skill asks for it and the sandbox works here. */
  private spawnPlan(d: McpDeclaration): { command: string; args: string[] } {
    const at = { workspace: this.opts.workspace, skillDir: d.skillDir };
    const [program, ...rest] = d.section.command.map((part) => substitute(part, at));
    const wantsBwrap = d.section.sandboxing === "bubblewrap";
    const bwrap = this.opts.bwrap;
    if (!wantsBwrap || this.opts.sandboxing === "none" || !bwrap.usable) {
      if (d.section.sandboxing !== "none") {
        const why =
          this.opts.sandboxing === "none"
            ? "sandboxing = none"
            : bwrap.usable
              ? "firejail is not supported"
              : bwrap.reason;
        this.opts.log.warn(
          `mcp server of skill '${d.skill}' asks for ${d.section.sandboxing}, but ${why}: it runs WITHOUT a sandbox`,
        );
      }
      return { command: program!, args: rest };
    }
    const sandbox = bwrapArgs({
      workspace: this.opts.workspace,
      skillDir: d.skillDir,
      network: d.section.permissions.includes("network"),
      hide: this.opts.hiddenPaths,
      readOnly: serverReadOnlyPaths([program!, ...rest], this.opts.workspace),
    });
    return { command: bwrap.path, args: [...sandbox, "--", program!, ...rest] };
  }

  private serverEnv(base: Readonly<Record<string, string>>, d: McpDeclaration): Record<string, string> {
    const at = { workspace: this.opts.workspace, skillDir: d.skillDir };
    const own = Object.fromEntries(Object.entries(d.section.env).map(([k, v]) => [k, substitute(v, at)]));
    return { ...base, EDGELOOP_WORKSPACE: this.opts.workspace, ...own };
  }
}
