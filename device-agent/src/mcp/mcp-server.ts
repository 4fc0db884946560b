import { backoffDelay } from "@edgeloop/edge-client/backoff";
import type { Logger } from "@edgeloop/edge-client/log";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import {
  type CallToolResult,
  type ElicitRequestFormParams,
  ElicitRequestSchema,
  type ElicitResult,
  type Tool,
  ToolListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import type { McpDeclaration } from "../skills/loaded-tool.js";
import { agentVersion } from "../version.js";
import type { DeviceQuestions } from "./device-questions.js";

export type McpServerState = "starting" | "ready" | "down" | "stopped";

export type McpServerOptions = {
  declaration: McpDeclaration;
  /** the program to spawn (bwrap around the server when sandboxed) */
  command: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  log: Logger;
  /** the listed tools differ from before (first listing, list_changed, a restart) */
  onToolsChanged: () => void;
  restartMinMs?: number;
  restartMaxMs?: number;
  /** up this long, the next crash restarts at the shortest delay again */
  stableAfterMs?: number;
  random?: () => number;
  /**
   * where the server's questions go (form-mode elicitation, declared only when given): the hub,
   * over the agent's WebSocket. Without it the server gets "method not found", as before.
   */
  questions?: DeviceQuestions;
};

/** A call in flight: the one a question the server asks is asked for. */
type Running = { requestId: string; ended: AbortController };

/** Pages of tools/list followed at most: a server that keeps handing out cursors is cut off. */
const MAX_LIST_PAGES = 100;
const STDERR_KEPT = 2_000;

/**
 * One skill's MCP server over stdio, through the official SDK's client: started, listed (following
 * `nextCursor`), listed again on `notifications/tools/list_changed`, and restarted with backoff
 * when it exits. While it is down its tools stay advertised and calls are refused by the caller
 * (mcp-skills.ts answers them `unavailable`).
 */
export class McpServer {
  state: McpServerState = "starting";
  tools: Tool[] = [];
  lastError: string | null = null;
  /** when a restart is due, while down */
  restartAt: number | null = null;
  private client: Client | null = null;
  private attempt = 0;
  private startedAt = 0;
  private restartTimer: NodeJS.Timeout | undefined;
  private stderrTail = "";
  private listing: Promise<void> = Promise.resolve();
  private listedOnce = false;
  /** calls in flight, oldest first */
  private readonly running: Running[] = [];

  constructor(private readonly opts: McpServerOptions) {}

  get skill(): string {
    return this.opts.declaration.skill;
  }

  get declaration(): McpDeclaration {
    return this.opts.declaration;
  }

  /** the server has listed its tools at least once (so `tools` means something while it is down) */
  get listed(): boolean {
    return this.listedOnce;
  }

  /** One attempt to start and list; a failure schedules the next. Resolves either way. */
  async start(): Promise<void> {
    if (this.state === "stopped") return;
    this.state = "starting";
    const section = this.opts.declaration.section;
    const transport = new StdioClientTransport({
      command: this.opts.command,
      args: this.opts.args,
      env: this.opts.env,
      cwd: this.opts.cwd,
      stderr: "pipe",
    });
    transport.stderr?.on("data", (chunk: Buffer) => {
      this.stderrTail = (this.stderrTail + chunk.toString()).slice(-STDERR_KEPT);
    });
    const questions = this.opts.questions;
    const client = new Client(
      { name: "edgeloop-agent", version: agentVersion() },
      { capabilities: questions ? { elicitation: { form: {} } } : {} },
    );
    if (questions) {
      // The SDK refuses URL mode before this runs: only form mode is declared.
      client.setRequestHandler(ElicitRequestSchema, (request, extra) =>
        this.onQuestion(questions, request.params as ElicitRequestFormParams, extra.signal),
      );
    }
    client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
      if (this.client === client) await this.relist(client, "list_changed");
    });
    client.onclose = () => this.onClosed(client);
    this.client = client;
    try {
      await client.connect(transport, { timeout: section.startup_timeout_ms });
      this.startedAt = Date.now();
      await this.relist(client, "start");
      if (this.client !== client) return;
      this.state = "ready";
      this.lastError = null;
      this.opts.log.info("mcp server ready", {
        skill: this.skill,
        pid: transport.pid,
        server: client.getServerVersion()?.name,
        tools: this.tools.map((t) => t.name),
      });
    } catch (e) {
      this.lastError = describe(e, this.stderrTail);
      this.opts.log.error("mcp server did not start", { skill: this.skill, error: this.lastError });
      // Closing fires onclose, which schedules the restart.
      await client.close().catch(() => undefined);
      if (this.client === client) this.onClosed(client);
    }
  }

  /** The running client, or null while the server is down. */
  ready(): Client | null {
    return this.state === "ready" ? this.client : null;
  }

  async call(
    name: string,
    args: Record<string, unknown>,
    opts: {
      /** the command's request id: what a question the server asks during the call is tied to */
      requestId: string;
      timeoutMs: number;
      signal?: AbortSignal;
      onProgress?: (text: string) => void;
      traceparent?: string;
    },
  ): Promise<CallToolResult> {
    const client = this.ready();
    if (!client) throw new ServerDown(this.downReason());
    // The trace context as MCP carries it: `params._meta.traceparent` (docs/tracing.md).
    const meta = opts.traceparent ? { _meta: { traceparent: opts.traceparent } } : {};
    const running: Running = { requestId: opts.requestId, ended: new AbortController() };
    this.running.push(running);
    try {
      return (await client.callTool({ name, arguments: args, ...meta }, undefined, {
        timeout: opts.timeoutMs,
        maxTotalTimeout: opts.timeoutMs,
        ...(opts.signal ? { signal: opts.signal } : {}),
        onprogress: (p) => opts.onProgress?.(p.message ?? `${p.progress}${p.total !== undefined ? `/${p.total}` : ""}`),
      })) as CallToolResult;
    } finally {
      // Its question, if one is still open (a timeout, a cancel), is answered `cancel`.
      running.ended.abort();
      this.running.splice(this.running.indexOf(running), 1);
    }
  }

  downReason(): string {
    const next = this.restartAt
      ? `; next start in ${Math.max(0, Math.round((this.restartAt - Date.now()) / 1000))} s`
      : "";
    const why = this.lastError ? `: ${this.lastError}` : "";
    return `MCP server of skill '${this.skill}' is ${this.state === "starting" ? "starting" : "not running"}${why}${next}`;
  }

  async stop(): Promise<void> {
    this.state = "stopped";
    clearTimeout(this.restartTimer);
    const client = this.client;
    this.client = null;
    await client?.close().catch(() => undefined);
  }

  /**
   * The server's question, asked for its call in flight. The request does not say which call it
   * belongs to (stdio carries no link), so with several calls in flight it goes to the oldest
   * without a question open; a question outside any call (while listing) is answered `cancel`.
   */
  private async onQuestion(
    questions: DeviceQuestions,
    params: ElicitRequestFormParams,
    signal: AbortSignal,
  ): Promise<ElicitResult> {
    const call = this.running.find((c) => !questions.asking(c.requestId)) ?? this.running[0];
    if (!call) return { action: "cancel" };
    const schema = params.requestedSchema as unknown as Record<string, unknown>;
    // Either ends the question: the server withdrew it, or the call ended. (AbortSignal.any needs Node 20.3.)
    const ended = new AbortController();
    for (const s of [signal, call.ended.signal]) {
      if (s.aborted) ended.abort();
      else s.addEventListener("abort", () => ended.abort(), { once: true });
    }
    const both = ended.signal;
    return questions.ask(call.requestId, this.skill, { message: params.message, requestedSchema: schema }, both);
  }

  /** Lists serially: a list_changed during a listing waits for it, then lists again. */
  private relist(client: Client, why: string): Promise<void> {
    this.listing = this.listing.then(async () => {
      const tools: Tool[] = [];
      let cursor: string | undefined;
      for (let page = 0; page < MAX_LIST_PAGES; page++) {
        const result = await client.listTools(cursor ? { cursor } : {}, {
          timeout: this.opts.declaration.section.startup_timeout_ms,
        });
        tools.push(...result.tools);
        cursor = result.nextCursor;
        if (!cursor) break;
      }
      if (cursor) this.opts.log.warn("mcp tools/list still paging; kept the first pages", { skill: this.skill });
      if (this.client !== client) return;
      const changed = !this.listedOnce || JSON.stringify(tools) !== JSON.stringify(this.tools);
      this.tools = tools;
      this.listedOnce = true;
      if (changed) {
        this.opts.log.info("mcp tools listed", { skill: this.skill, why, tools: tools.length });
        this.opts.onToolsChanged();
      }
    });
    const listed = this.listing;
    // A failed listing must not block the next one; the caller of this one sees the failure.
    this.listing = listed.catch((e) => {
      this.opts.log.warn("mcp tools/list failed", { skill: this.skill, why, error: (e as Error).message });
    });
    return listed;
  }

  private onClosed(client: Client): void {
    if (this.client !== client || this.state === "stopped") return;
    this.client = null;
    if (this.state === "ready") {
      this.lastError = `exited${this.stderrTail ? ` (stderr: ${lastLine(this.stderrTail)})` : ""}`;
      this.opts.log.warn("mcp server exited", { skill: this.skill, stderr: this.stderrTail.slice(-500) });
    }
    if (this.startedAt > 0 && Date.now() - this.startedAt >= (this.opts.stableAfterMs ?? 30_000)) this.attempt = 0;
    this.startedAt = 0;
    this.state = "down";
    const delay = backoffDelay(
      this.attempt,
      this.opts.restartMinMs ?? 1_000,
      this.opts.restartMaxMs ?? 60_000,
      this.opts.random,
    );
    // Never right away: a server that dies at once would otherwise be spawned in a tight loop.
    const wait = Math.max(delay, this.opts.restartMinMs ?? 1_000);
    this.attempt++;
    this.restartAt = Date.now() + wait;
    this.restartTimer = setTimeout(() => {
      this.restartAt = null;
      void this.start();
    }, wait);
    this.restartTimer.unref?.();
  }
}

/** A call to a server that is not running. */
export class ServerDown extends Error {}

function describe(e: unknown, stderr: string): string {
  const message = e instanceof Error ? e.message : String(e);
  return stderr.trim() ? `${message} (stderr: ${lastLine(stderr)})` : message;
}

const lastLine = (text: string) => text.trim().split("\n").slice(-1)[0]!.slice(0, 300);
