import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  type CallToolResult,
  type ElicitRequestFormParams,
  ElicitRequestSchema,
  type ElicitResult,
  ErrorCode,
  McpError,
  type Tool,
  ToolListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { guardedFetch, OutboundRefused } from "../../../runtime/guarded-fetch.js";
import type { OutboundUrlPolicy } from "../../../runtime/outbound-url.js";
import type { McpServerConfig } from "./mcp-servers-config.js";
import { NO_SCHEMA_VALIDATION } from "./no-schema-validation.js";
import { cachedTokens, type McpTokens, needsConsent, oauthFetch } from "./oauth-fetch.js";

/**
 * The conversation's connections to remote MCP servers, through the official SDK's client and its
 * Streamable HTTP transport (fetch, so it runs in the Durable Object). One client per server,
 * opened on first use and closed after a minute unused, so an idle conversation holds no
 * connection (the SDK keeps a GET stream open while connected, which is also how a server's
 * tools/list_changed reaches us). Every request has a time limit.
 */
const IDLE_CLOSE_MS = 60_000;
const MAX_LIST_PAGES = 50;

/** A failure of the transport (network, HTTP 429/5xx, a lost session): worth another attempt. */
export class TransportFailure extends Error {}

type Open = { client: Client; idle: ReturnType<typeof setTimeout> | undefined };

/** A server's question for a person (`elicitation/create`, form mode), answered by server-questions.ts. */
export type OnQuestion = (
  server: string,
  params: ElicitRequestFormParams,
  signal: AbortSignal,
) => Promise<ElicitResult>;

export class RemoteMcpClients {
  private readonly open = new Map<string, Promise<Open>>();
  private readonly tokens: McpTokens;

  constructor(
    private readonly onToolsChanged: (server: string) => void,
    /** the deployment's OAuth tokens, for servers with `oauth` (oauth-fetch.ts) */
    tokens: McpTokens,
    private readonly onQuestion: OnQuestion,
  ) {
    this.tokens = cachedTokens(tokens);
  }

  async listTools(server: McpServerConfig, outbound: OutboundUrlPolicy, timeoutMs: number): Promise<Tool[]> {
    return this.use(server, outbound, timeoutMs, async (client) => {
      const tools: Tool[] = [];
      let cursor: string | undefined;
      for (let page = 0; page < MAX_LIST_PAGES; page++) {
        const result = await client.listTools(cursor ? { cursor } : {}, { timeout: timeoutMs });
        tools.push(...result.tools);
        cursor = result.nextCursor;
        if (!cursor) break;
      }
      return tools;
    });
  }

  async callTool(
    server: McpServerConfig,
    outbound: OutboundUrlPolicy,
    name: string,
    args: Record<string, unknown>,
    timeoutMs: number,
    traceparent?: string,
    /** aborts the call (its own time limit, which stops while a person is asked: call-clock.ts) */
    signal?: AbortSignal,
  ): Promise<CallToolResult> {
    // The trace context as MCP carries it (docs/tracing.md).
    const meta = traceparent ? { _meta: { traceparent } } : {};
    return this.use(
      server,
      outbound,
      timeoutMs,
      async (client) =>
        (await client.callTool({ name, arguments: args, ...meta }, undefined, {
          timeout: timeoutMs,
          maxTotalTimeout: timeoutMs,
          ...(signal ? { signal } : {}),
        })) as CallToolResult,
    );
  }

  /** Runs `work` on the server's client; a transport failure drops the client and is thrown as TransportFailure. */
  private async use<T>(
    server: McpServerConfig,
    outbound: OutboundUrlPolicy,
    timeoutMs: number,
    work: (client: Client) => Promise<T>,
  ): Promise<T> {
    let entry: Open;
    try {
      entry = await this.connect(server, outbound, timeoutMs);
    } catch (e) {
      this.drop(server.name);
      throw transportFailure(e) ?? e;
    }
    if (entry.idle !== undefined) clearTimeout(entry.idle);
    try {
      return await work(entry.client);
    } catch (e) {
      const failure = transportFailure(e);
      if (failure) this.drop(server.name);
      throw failure ?? e;
    } finally {
      if (this.open.has(server.name)) entry.idle = setTimeout(() => this.drop(server.name), IDLE_CLOSE_MS);
    }
  }

  private connect(server: McpServerConfig, outbound: OutboundUrlPolicy, timeoutMs: number): Promise<Open> {
    let opening = this.open.get(server.name);
    if (!opening) {
      opening = (async () => {
        const headers: Record<string, string> = { ...server.headers };
        if (server.bearer) headers.authorization = `Bearer ${server.bearer}`;
        // Every request (and each redirect the SDK follows within the origin) passes the outbound
        // rule; a server with `oauth` gets the deployment's token on each request.
        const guarded = guardedFetch(outbound);
        const transport = new StreamableHTTPClientTransport(new URL(server.url), {
          requestInit: { headers },
          redirectPolicy: "same-origin",
          fetch: server.oauth ? oauthFetch(server.name, this.tokens, guarded) : guarded,
        });
        // Form-mode elicitation: a server may ask the person a question during a call. Defaults
        // are applied by our own check of the answer (elicitation-form.ts), not by the SDK.
        const client = new Client(
          { name: "edgeloop-conversation", version: "0.1.0" },
          { capabilities: { elicitation: { form: {} } }, jsonSchemaValidator: NO_SCHEMA_VALIDATION },
        );
        client.setNotificationHandler(ToolListChangedNotificationSchema, () => this.onToolsChanged(server.name));
        client.setRequestHandler(ElicitRequestSchema, (request, extra) => {
          // The SDK refuses URL mode before this runs: only form mode is declared.
          const params = request.params as ElicitRequestFormParams;
          return this.onQuestion(server.name, params, extra.signal);
        });
        await client.connect(transport, { timeout: timeoutMs });
        return { client, idle: undefined };
      })();
      this.open.set(server.name, opening);
    }
    return opening;
  }

  private drop(name: string): void {
    const opening = this.open.get(name);
    this.open.delete(name);
    void opening
      ?.then((entry) => {
        if (entry.idle !== undefined) clearTimeout(entry.idle);
        return entry.client.close();
      })
      .catch(() => undefined);
  }
}

/** The error as a TransportFailure when another attempt could succeed; null when it is the server's answer. */
function transportFailure(e: unknown): TransportFailure | null {
  if (e instanceof TransportFailure) return e;
  // The server needs an admin's consent: no attempt succeeds before that.
  if (needsConsent(e)) return null;
  // Refused by the outbound rule: another attempt would be refused the same way.
  if (isRefusal(e)) return null;
  if (e instanceof StreamableHTTPError) {
    const code = e.code ?? 0;
    // 404: the server forgot our session; a new one is opened on the next attempt.
    if (code === 404 || code === 408 || code === 429 || code >= 500 || code < 0) return new TransportFailure(e.message);
    return null;
  }
  // A JSON-RPC error is the server's answer (or our own time limit): final.
  if (e instanceof McpError) return e.code === ErrorCode.ConnectionClosed ? new TransportFailure(e.message) : null;
  // Anything else failed on the way (fetch's "Network connection lost.", a reset stream, a reply
  // that is not JSON-RPC): another attempt may get through.
  return new TransportFailure(e instanceof Error ? e.message : String(e));
}

/** An error that is (or wraps) a refusal by the outbound rule. */
export function isRefusal(e: unknown): boolean {
  for (let cause = e, depth = 0; cause instanceof Error && depth < 4; cause = cause.cause, depth++)
    if (cause instanceof OutboundRefused || cause.name === "OutboundRefused") return true;
  return false;
}
