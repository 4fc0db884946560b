import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { answerMessages } from "./anthropic-answer.js";
import { headersOf, readJson, sendJson } from "./http-io.js";
import { answerChatCompletions, openAiError } from "./openai-answer.js";
import { handleScopeRoute } from "./scope-routes.js";
import { ScriptBody, type ScriptRule, type ScriptRuleInput, ScriptRules } from "./script.js";
import type { ScriptedRequest } from "./scripted-request.js";
import type { ServerState } from "./server-state.js";

/**
 * The scripted model: a server speaking the real wire formats of OpenAI's Chat Completions and
 * Anthropic's Messages API, answering from a script. The only stand-in our tests use for an LLM.
 *
 *   POST …/chat/completions     OpenAI format, streaming (SSE) and not
 *   POST …/v1/messages          Anthropic format, streaming (SSE with event names) and not
 *   GET  …/models
 *   POST /__script  {rules}     replace the script (400 on a bad one)
 *   GET  /__requests            every model request received, in order: [{at, format, path, headers, body}]
 *   POST /__reset               forget recorded requests and failure counters (script stays)
 *   …    /__scopes/{name}…       clients sharing the server, each with a script of its own (scope-routes.ts)
 *
 * Model routes match by how the path ends, so a base URL of any shape works: `/v1`, or an AI
 * Gateway's `/v1/{account}/{gateway}/openai`, `…/workers-ai/v1`, `…/anthropic`.
 */

export type { ScriptedRequest } from "./scripted-request.js";

export type ScriptedLlm = {
  /** Base URL ending in /v1, ready for OPENAI_BASE_URL. */
  url: string;
  /** http://host:port, ready for ANTHROPIC_BASE_URL (the Anthropic client adds /v1 itself) */
  origin: string;
  port: number;
  setRules(rules: ScriptRuleInput[]): void;
  requests(): ScriptedRequest[];
  reset(): void;
  close(): Promise<void>;
};

export type ScriptedLlmOptions = { port?: number; host?: string; rules?: ScriptRuleInput[] };

export async function startScriptedLlm(options: ScriptedLlmOptions = {}): Promise<ScriptedLlm> {
  const state: ServerState = {
    rules: parseRulesOrThrow(options.rules ?? []),
    requests: [] as ScriptedRequest[],
    failures: new Map<string, number>(),
    responses: 0,
    cachePrefixes: new Set<string>(),
    scopes: new Map(),
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
    origin: `http://${urlHost}:${port}`,
    port,
    setRules: (rules) => {
      state.rules = parseRulesOrThrow(rules);
    },
    requests: () => [...state.requests],
    reset: () => {
      state.requests = [];
      state.failures.clear();
      state.cachePrefixes.clear();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

async function handle(state: ServerState, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const path = new URL(req.url ?? "/", "http://localhost").pathname.replace(/\/+$/, "");
  const route = `${req.method} ${path}`;
  const record = { path, headers: headersOf(req) };
  if (req.method === "POST" && path.endsWith("/chat/completions")) {
    return answerChatCompletions(state, req, res, { ...record, format: "openai" });
  }
  if (req.method === "POST" && path.endsWith("/v1/messages")) {
    return answerMessages(state, req, res, { ...record, format: "anthropic" });
  }
  if (req.method === "GET" && path.endsWith("/models")) {
    return sendJson(res, 200, {
      object: "list",
      data: [{ id: "scripted", object: "model", created: 0, owned_by: "edgeloop" }],
    });
  }
  if (await handleScopeRoute(state, req, res, path)) return;
  switch (route) {
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
      state.cachePrefixes.clear();
      return sendJson(res, 200, { ok: true });
    default:
      return sendJson(res, 404, openAiError(`no route for ${route}`, "invalid_request_error"));
  }
}

function parseRulesOrThrow(rules: ScriptRuleInput[]): ScriptRule[] {
  const parsed = ScriptRules.safeParse(rules);
  if (!parsed.success) {
    throw new Error(`bad script: ${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`);
  }
  return parsed.data;
}
