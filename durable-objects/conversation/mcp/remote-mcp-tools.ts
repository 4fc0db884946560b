import {
  type ErrorType,
  outcomeFromMcpResult,
  type ParametersSchema,
  type ToolOutcome,
  type ToolSpec,
} from "@edgeloop/protocol";
import { cutInputSchema } from "@edgeloop/protocol/mcp-input-schema";
import {
  type ElicitRequestFormParams,
  type ElicitResult,
  ErrorCode,
  McpError,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import { log } from "../../../runtime/log.js";
import { checkOutboundUrl, type OutboundUrlPolicy } from "../../../runtime/outbound-url.js";
import { backoffDelayMs, retriedCallBudgetMs } from "../builtins/retry-delay.js";
import { MAX_WEBHOOK_RESPONSE_BYTES } from "../builtins/webhook-call.js";
import type { ConversationStore } from "../storage/conversation-store.js";
import { CallClock } from "./call-clock.js";
import { type McpServerConfig, policyOf, remoteToolName } from "./mcp-servers-config.js";
import { type McpTokens, needsConsent } from "./oauth-fetch.js";
import { isRefusal, RemoteMcpClients, TransportFailure } from "./remote-mcp-client.js";
import type { ServerQuestions } from "./server-questions.js";

/**
 * Remote MCP servers' tools as a conversation's tools (`MCP_SERVERS`). Each server is listed once
 * per conversation and the list kept in the conversation's storage; a `tools/list_changed` from
 * the server marks it stale and the next message lists again. A server that cannot be listed
 * offers no tools for that message (and is tried again on the next). Calls run in the
 * orchestrator (kind "builtin"), so the loop's validation, hooks, approval policy and result caps
 * apply as to webhook tools; transport failures are retried with backoff, and a server still
 * unreachable is an `unavailable` error the model reads. A server may ask the person a question
 * during a call (server-questions.ts); the call's own time limit stops while it waits.
 */
type RemoteTool = { server: string; tool: string; name: string; description: string; parameters: ParametersSchema };
type Cached = Record<string, { tools: RemoteTool[]; stale: boolean }>;
/** A call in flight to a server: the one its questions are asked for. */
type Running = { toolCallId: string; clock: CallClock; signal: AbortSignal; questionWaitMs: number };

const CACHE_KEY = "mcp_tools";
/** Listing happens while a message is being accepted: never let a slow server hold it long. */
const MAX_LIST_MS = 10_000;
/** Text kept of a result, as for webhook tools; images get three times that in base64. */
const MAX_RESULT_BYTES = MAX_WEBHOOK_RESPONSE_BYTES;

/** Where no deployment keeps OAuth tokens: a server with `oauth` is then never connected. */
const NO_OAUTH: McpTokens = {
  token: async (server) => ({ ok: false, error: `MCP server '${server}' needs OAuth, which is not available here` }),
  insufficientScope: async (server) => `MCP server '${server}' asks for more scope`,
};

export class RemoteMcpTools {
  private readonly clients: RemoteMcpClients;
  /** calls in flight, by server name, oldest first */
  private readonly running = new Map<string, Running[]>();

  constructor(
    private readonly store: ConversationStore,
    private readonly questions: ServerQuestions,
    private readonly sleep: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms)),
    tokens: McpTokens = NO_OAUTH,
  ) {
    this.clients = new RemoteMcpClients(
      (server) => this.markStale(server),
      tokens,
      (server, params, signal) => this.ask(server, params, signal),
    );
  }

  /** The tools of every configured server, from the cache or listed now. */
  async specs(servers: McpServerConfig[], outbound: OutboundUrlPolicy, conversationId: string): Promise<ToolSpec[]> {
    if (servers.length === 0) return [];
    const cached = this.store.getValue<Cached>(CACHE_KEY) ?? {};
    const listed = await Promise.all(
      servers.map(async (server) => {
        const have = cached[server.name];
        if (have && !have.stale) return [server.name, have] as const;
        const tools = await this.list(server, outbound, conversationId);
        return [server.name, tools ? { tools, stale: false } : have] as const;
      }),
    );
    const next: Cached = {};
    for (const [name, entry] of listed) if (entry) next[name] = entry;
    if (JSON.stringify(next) !== JSON.stringify(cached)) this.store.putValue(CACHE_KEY, next);
    return servers.flatMap((server) => (next[server.name]?.tools ?? []).map((t) => spec(server, t)));
  }

  /** The remote tool a model's call names, if it is one (from the cache this conversation listed). */
  find(name: string): RemoteTool | null {
    const cached = this.store.getValue<Cached>(CACHE_KEY) ?? {};
    for (const entry of Object.values(cached)) {
      const tool = entry.tools.find((t) => t.name === name);
      if (tool) return tool;
    }
    return null;
  }

  async run(
    tool: RemoteTool,
    servers: McpServerConfig[],
    args: Record<string, unknown>,
    outbound: OutboundUrlPolicy,
    /** the call's W3C trace context, sent as `params._meta.traceparent` */
    traceparent: string | undefined,
    /** the loop's call: a question the server asks during it is asked for this call */
    toolCallId: string,
  ): Promise<ToolOutcome> {
    const started = Date.now();
    const fail = (error_type: ErrorType, error: string): ToolOutcome => ({
      status: "error",
      tool: tool.name,
      error,
      error_type,
      elapsed_ms: Date.now() - started,
    });
    const server = servers.find((s) => s.name === tool.server);
    if (!server) return fail("not_found", `MCP server '${tool.server}' is no longer configured`);
    const url = checkOutboundUrl(server.url, outbound);
    if (!url.ok) return fail("permission_denied", `MCP server '${server.name}' refused: ${url.reason}`);
    const timeoutMs = server.timeout_secs * 1000;
    let lastFailure = "";
    for (let attempt = 0; attempt <= server.max_retries; attempt++) {
      if (attempt > 0) await this.sleep(backoffDelayMs(attempt - 1));
      // The attempt's time limit, stopped while a person is asked; the SDK's own limit is the
      // call's whole budget, so it never cuts a call that is waiting for a person.
      const abort = new AbortController();
      const clock = new CallClock(timeoutMs, () =>
        abort.abort(new McpError(ErrorCode.RequestTimeout, "Request timed out", { timeout: timeoutMs })),
      );
      const questionWaitMs = server.elicitation_timeout_secs * 1000;
      const running: Running = { toolCallId, clock, signal: abort.signal, questionWaitMs };
      this.running.set(server.name, [...(this.running.get(server.name) ?? []), running]);
      try {
        const budget = callBudgetMs(server);
        const result = await this.clients.callTool(
          server,
          outbound,
          tool.tool,
          args,
          budget,
          traceparent,
          abort.signal,
        );
        return outcomeFromMcpResult(tool.name, result, {
          maxTextBytes: MAX_RESULT_BYTES,
          maxImageChars: MAX_RESULT_BYTES * 3,
          elapsedMs: Date.now() - started,
        });
      } catch (e) {
        if (e instanceof TransportFailure) {
          lastFailure = e.message;
          continue;
        }
        return failure(e, tool.name, server, fail);
      } finally {
        clock.stop();
        const left = (this.running.get(server.name) ?? []).filter((r) => r !== running);
        if (left.length > 0) this.running.set(server.name, left);
        else this.running.delete(server.name);
      }
    }
    const attempts = server.max_retries + 1;
    return fail(
      "unavailable",
      `MCP server '${server.name}' could not be reached (${attempts} attempt${attempts === 1 ? "" : "s"}): ${lastFailure}`,
    );
  }

  private async list(
    server: McpServerConfig,
    outbound: OutboundUrlPolicy,
    conversationId: string,
  ): Promise<RemoteTool[] | null> {
    const url = checkOutboundUrl(server.url, outbound);
    if (!url.ok) {
      log("warn", "mcp server refused", { conversation_id: conversationId, server: server.name, reason: url.reason });
      return null;
    }
    try {
      const tools = await this.clients.listTools(server, outbound, Math.min(server.timeout_secs * 1000, MAX_LIST_MS));
      return this.offered(server, tools, conversationId);
    } catch (e) {
      log("warn", "mcp server not listed; its tools are left out of this message", {
        conversation_id: conversationId,
        server: server.name,
        error: String(e),
      });
      return null;
    }
  }

  private offered(server: McpServerConfig, tools: Tool[], conversationId: string): RemoteTool[] {
    const out: RemoteTool[] = [];
    for (const tool of tools) {
      if (server.allowed_tools && !server.allowed_tools.includes(tool.name)) continue;
      const name = remoteToolName(server.name, tool.name);
      if (!name || tool.execution?.taskSupport === "required") {
        log("info", "mcp tool not offered", {
          server: server.name,
          tool: tool.name,
          reason: name ? "needs MCP tasks" : "name too long",
        });
        continue;
      }
      const cut = cutInputSchema(tool.inputSchema);
      if (cut.dropped.length > 0)
        log("info", "mcp tool schema cut down to what the validator checks", {
          conversation_id: conversationId,
          server: server.name,
          tool: tool.name,
          dropped: cut.dropped,
        });
      const description = (tool.description ?? tool.title ?? `MCP tool '${tool.name}'`).slice(0, 4000);
      out.push({
        server: server.name,
        tool: tool.name,
        name,
        description: `[${server.name}] ${description}`,
        parameters: cut.parameters,
      });
    }
    return out;
  }

  /**
   * A server's question, asked for its call in flight. The request does not say which of our
   * calls it belongs to, so with several calls to one server in flight it goes to the oldest
   * without a question open; a question outside any call (while listing) is answered `cancel`.
   */
  private async ask(server: string, params: ElicitRequestFormParams, signal: AbortSignal): Promise<ElicitResult> {
    const calls = this.running.get(server) ?? [];
    const call = calls.find((c) => !this.questions.has(c.toolCallId)) ?? calls[0];
    if (!call) return { action: "cancel" };
    const both = AbortSignal.any([signal, call.signal]);
    call.clock.pause();
    try {
      return await this.questions.ask(call.toolCallId, server, params, call.questionWaitMs, both);
    } finally {
      call.clock.resume();
    }
  }

  private markStale(server: string): void {
    const cached = this.store.getValue<Cached>(CACHE_KEY);
    const entry = cached?.[server];
    if (!cached || !entry || entry.stale) return;
    this.store.putValue(CACHE_KEY, { ...cached, [server]: { ...entry, stale: true } });
  }
}

/** A call's whole time: its attempts and their backoff, and one question's wait for a person. */
function callBudgetMs(server: McpServerConfig): number {
  return retriedCallBudgetMs(server) + server.elicitation_timeout_secs * 1000;
}

function spec(server: McpServerConfig, tool: RemoteTool): ToolSpec {
  const budget = callBudgetMs(server);
  return {
    name: tool.name,
    description: tool.description,
    parameters: tool.parameters,
    timeout_ms: budget,
    max_timeout_ms: budget,
    kind: "builtin",
    policy: policyOf(server, tool.tool),
  };
}

/** The server's own answer (or our request's time running out) as the tool error it is. */
function failure(
  e: unknown,
  name: string,
  server: McpServerConfig,
  fail: (type: ErrorType, error: string) => ToolOutcome,
): ToolOutcome {
  const message = e instanceof Error ? e.message : String(e);
  // An error the model can relay: only an admin can fix it (docs/mcp.md#connecting-a-remote-server-that-needs-oauth).
  const consent = needsConsent(e);
  if (consent) return fail("permission_denied", consent.message);
  if (isRefusal(e)) return fail("permission_denied", `MCP server '${server.name}' refused: ${message}`);
  const code = e instanceof McpError ? e.code : null;
  if (code === ErrorCode.RequestTimeout)
    return fail("timeout", `Tool '${name}' timed out after ${server.timeout_secs}s`);
  if (code === ErrorCode.InvalidParams) return fail("invalid_params", `Invalid parameters for '${name}': ${message}`);
  if (code === ErrorCode.MethodNotFound) return fail("not_found", `Tool '${name}': ${message}`);
  return fail("execution_failed", `MCP server '${server.name}' answered: ${message}`);
}
