import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { chooseTurn } from "./choose-turn.js";
import { viewConversation } from "./conversation-view.js";
import { completionBody, type ResponseMeta, resolveTurn, streamChunks } from "./render-response.js";
import { ScriptBody, type ScriptRule, type ScriptRuleInput, ScriptRules } from "./script.js";

/**
 * The scripted model: an OpenAI-compatible Chat Completions server speaking the real wire
 * format, answering from a script. The only stand-in our tests use for an LLM.
 *
 *   POST /v1/chat/completions   streaming (SSE) and not
 *   GET  /v1/models
 *   POST /__script  {rules}     replace the script (400 on a bad one)
 *   GET  /__requests            every chat request received, in order: [{at, body}]
 *   POST /__reset               forget recorded requests and failure counters (script stays)
 */

/**
 * One chat request as received. `received_ms` / `answered_ms` are sub-millisecond clock readings
 * (ms since the epoch) of when its body had arrived and when the whole answer had been written,
 * for benchmarks that time the gaps between model calls.
 */
export type ScriptedRequest = { at: string; body: unknown; received_ms: number; answered_ms?: number };

export type ScriptedLlm = {
  /** Base URL ending in /v1, ready for OPENAI_BASE_URL. */
  url: string;
  port: number;
  setRules(rules: ScriptRuleInput[]): void;
  requests(): ScriptedRequest[];
  reset(): void;
  close(): Promise<void>;
};

export type ScriptedLlmOptions = { port?: number; host?: string; rules?: ScriptRuleInput[] };

const MAX_BODY_BYTES = 20 * 1024 * 1024;

export async function startScriptedLlm(options: ScriptedLlmOptions = {}): Promise<ScriptedLlm> {
  const state = {
    rules: parseRulesOrThrow(options.rules ?? []),
    requests: [] as ScriptedRequest[],
    /** failures served so far per scripted turn, for `error.times` */
    failures: new Map<string, number>(),
    responses: 0,
  };
  const server = createServer((req, res) => {
    handle(state, req, res).catch((e: unknown) => {
      if (!res.headersSent)
        sendJson(res, 500, openAiError(`scripted model failed: ${(e as Error).message}`, "server_error"));
      else res.destroy();
    });
  });
  const host = options.host ?? "127.0.0.1";
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const urlHost = host.includes(":") ? `[${host}]` : host;
  return {
    url: `http://${urlHost}:${port}/v1`,
    port,
    setRules: (rules) => {
      state.rules = parseRulesOrThrow(rules);
    },
    requests: () => [...state.requests],
    reset: () => {
      state.requests = [];
      state.failures.clear();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

type ServerState = {
  rules: ScriptRule[];
  requests: ScriptedRequest[];
  failures: Map<string, number>;
  responses: number;
};

async function handle(state: ServerState, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const path = new URL(req.url ?? "/", "http://localhost").pathname.replace(/\/+$/, "");
  const route = `${req.method} ${path}`;
  switch (route) {
    case "POST /v1/chat/completions":
    case "POST /chat/completions":
      return chatCompletions(state, req, res);
    case "GET /v1/models":
    case "GET /models":
      return sendJson(res, 200, {
        object: "list",
        data: [{ id: "scripted", object: "model", created: 0, owned_by: "edgeloop" }],
      });
    case "POST /__script": {
      const body = await readJson(req);
      const parsed = body.ok ? ScriptBody.safeParse(body.value) : null;
      if (!parsed?.success) {
        const why = !body.ok
          ? body.error
          : parsed!.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ");
        return sendJson(res, 400, { error: `bad script: ${why}` });
      }
      state.rules = parsed.data.rules;
      state.failures.clear();
      return sendJson(res, 200, { ok: true, rules: state.rules.length });
    }
    case "GET /__requests":
      return sendJson(res, 200, state.requests);
    case "POST /__reset":
      state.requests = [];
      state.failures.clear();
      return sendJson(res, 200, { ok: true });
    default:
      return sendJson(res, 404, openAiError(`no route for ${route}`, "invalid_request_error"));
  }
}

async function chatCompletions(state: ServerState, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const body = await readJson(req);
  if (!body.ok) return sendJson(res, 400, openAiError(body.error, "invalid_request_error"));
  const record: ScriptedRequest = { at: new Date().toISOString(), body: body.value, received_ms: preciseNow() };
  state.requests.push(record);
  res.once("finish", () => (record.answered_ms = preciseNow()));
  const request = (typeof body.value === "object" && body.value !== null ? body.value : {}) as Record<string, unknown>;
  if (!Array.isArray(request.messages)) {
    return sendJson(res, 400, openAiError("'messages' is required", "invalid_request_error"));
  }
  const view = viewConversation(request);
  const choice = chooseTurn(state.rules, view);
  const { turn } = choice;
  if (turn.delay_ms) await sleep(turn.delay_ms);
  if (turn.error && choice.kind === "scripted") {
    const key = `${choice.ruleIndex}:${choice.turnIndex}:${view.user}`;
    const served = state.failures.get(key) ?? 0;
    if (turn.error.times === undefined || served < turn.error.times) {
      state.failures.set(key, served + 1);
      const headers: Record<string, string> = {};
      if (turn.error.retry_after !== undefined) headers["retry-after"] = String(turn.error.retry_after);
      const type =
        turn.error.status === 429
          ? "rate_limit_exceeded"
          : turn.error.status >= 500
            ? "server_error"
            : "invalid_request_error";
      return sendJson(
        res,
        turn.error.status,
        openAiError(turn.error.message ?? `scripted ${turn.error.status}`, type),
        headers,
      );
    }
  }
  const resolved = resolveTurn(choice, { ...view, matchGroups: choice.matchGroups });
  state.responses++;
  const streamOptions = request.stream_options as { include_usage?: unknown } | undefined;
  const meta: ResponseMeta = {
    id: `chatcmpl-scripted-${state.responses}`,
    model: typeof request.model === "string" ? request.model : "scripted",
    created: Math.floor(Date.now() / 1000),
    // Like real providers, the prompt count includes the tool definitions sent with the messages.
    promptTokens: Math.max(1, Math.ceil((JSON.stringify(request.messages).length + toolsLength(request.tools)) / 4)),
    includeUsage: streamOptions?.include_usage === true,
  };
  if (request.stream !== true) return sendJson(res, 200, completionBody(resolved, meta));

  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
  const chunks = streamChunks(resolved, meta);
  for (const [i, chunk] of chunks.entries()) {
    if (res.destroyed) return;
    res.write(`data: ${JSON.stringify(chunk)}\n\n`);
    // Yield between events so they leave as separate writes, like a real token stream.
    await sleep(i === 0 && resolved.quirks.stall_after_first_chunk_ms ? resolved.quirks.stall_after_first_chunk_ms : 0);
  }
  res.end("data: [DONE]\n\n");
}

function toolsLength(tools: unknown): number {
  return Array.isArray(tools) && tools.length > 0 ? JSON.stringify(tools).length : 0;
}

function parseRulesOrThrow(rules: ScriptRuleInput[]): ScriptRule[] {
  const parsed = ScriptRules.safeParse(rules);
  if (!parsed.success) {
    throw new Error(`bad script: ${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`);
  }
  return parsed.data;
}

function readJson(req: IncomingMessage): Promise<{ ok: true; value: unknown } | { ok: false; error: string }> {
  return new Promise((resolve) => {
    const parts: Buffer[] = [];
    let size = 0;
    req.on("data", (part: Buffer) => {
      size += part.length;
      if (size <= MAX_BODY_BYTES) parts.push(part);
    });
    req.on("error", (e) => resolve({ ok: false, error: e.message }));
    req.on("end", () => {
      if (size > MAX_BODY_BYTES) return resolve({ ok: false, error: "request body too large" });
      const text = Buffer.concat(parts).toString("utf8");
      try {
        resolve({ ok: true, value: text === "" ? {} : JSON.parse(text) });
      } catch (e) {
        resolve({ ok: false, error: `body is not JSON: ${(e as Error).message}` });
      }
    });
  });
}

function openAiError(message: string, type: string) {
  return { error: { message, type, param: null, code: type } };
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text), ...headers });
  res.end(text);
}

const preciseNow = () => performance.timeOrigin + performance.now();
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
