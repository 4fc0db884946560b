import type { IncomingMessage, ServerResponse } from "node:http";
import { anthropicProblem } from "./anthropic-checks.js";
import {
  type AnthropicMeta,
  anthropicErrorBody,
  anthropicErrorType,
  anthropicEvents,
  anthropicMessage,
} from "./anthropic-render.js";
import { viewAnthropicConversation } from "./anthropic-view.js";
import { chooseTurn } from "./choose-turn.js";
import { headersOf, preciseNow, readJson, sendJson, sleep, startSse } from "./http-io.js";
import { resolveTurn } from "./render-response.js";
import type { ScriptedRequest } from "./scripted-request.js";
import { ambiguityMessage, failureToServe, type ServerState, scriptFor } from "./server-state.js";

/**
 * `POST …/v1/messages`: the scripted turn in Anthropic's Messages API format, streamed (SSE
 * with `event:` names) or whole. The request is checked as the real API checks it
 * (anthropic-checks.ts). Errors come in the API's shape with a `request-id` header: 429
 * `rate_limit_error` and 529 `overloaded_error` with `retry-after` when scripted, or, with
 * `in_stream`, a 200 stream that breaks off with an `error` event.
 */
export async function answerMessages(
  state: ServerState,
  req: IncomingMessage,
  res: ServerResponse,
  record: Omit<ScriptedRequest, "body" | "received_ms" | "at">,
): Promise<void> {
  const requestId = `req_scripted_${state.requests.length + 1}`;
  const fail = (status: number, type: string, message: string, headers: Record<string, string> = {}) =>
    sendJson(res, status, anthropicErrorBody(type, message, requestId), { "request-id": requestId, ...headers });
  const body = await readJson(req);
  if (!body.ok) return fail(400, "invalid_request_error", body.error);
  const entry: ScriptedRequest = {
    ...record,
    at: new Date().toISOString(),
    body: body.value,
    received_ms: preciseNow(),
  };
  state.requests.push(entry);
  res.once("finish", () => (entry.answered_ms = preciseNow()));
  const problem = anthropicProblem(body.value, headersOf(req));
  if (problem) return fail(problem.status, problem.type, problem.message);
  const request = body.value as Record<string, unknown>;

  const view = viewAnthropicConversation(request);
  const script = scriptFor(state, view, entry);
  if ("ambiguous" in script) return fail(400, "invalid_request_error", ambiguityMessage(script.ambiguous));
  const choice = chooseTurn(script.rules, view);
  if (choice.turn.delay_ms) await sleep(choice.turn.delay_ms);
  const failure = failureToServe(script, choice, view);
  if (failure && !failure.in_stream) {
    const headers: Record<string, string> = {};
    if (failure.retry_after !== undefined) headers["retry-after"] = String(failure.retry_after);
    const type = anthropicErrorType(failure.status);
    return fail(
      failure.status,
      type,
      failure.message ?? (failure.status === 529 ? "Overloaded" : `scripted ${failure.status}`),
      headers,
    );
  }
  const resolved = resolveTurn(choice, { ...view, matchGroups: choice.matchGroups });
  state.responses++;
  const meta: AnthropicMeta = {
    id: `msg_scripted_${state.responses}`,
    model: typeof request.model === "string" ? request.model : "scripted",
    usage: inputUsage(state, request),
  };
  if (request.stream !== true) {
    if (failure) return fail(failure.status, anthropicErrorType(failure.status), failure.message ?? "Overloaded");
    return sendJson(res, 200, anthropicMessage(resolved, meta), { "request-id": requestId });
  }

  startSse(res, { "request-id": requestId });
  const events = anthropicEvents(resolved, meta);
  for (const [i, { event, data }] of events.entries()) {
    if (res.destroyed) return;
    if (failure && i === 1) {
      // The API reports trouble that starts after the 200 as an `error` event, then ends.
      const error = anthropicErrorBody(anthropicErrorType(failure.status), failure.message ?? "Overloaded", requestId);
      res.end(`event: error\ndata: ${JSON.stringify({ type: "error", error: error.error })}\n\n`);
      return;
    }
    res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
    await sleep(i === 0 && resolved.quirks.stall_after_first_chunk_ms ? resolved.quirks.stall_after_first_chunk_ms : 0);
  }
  res.end();
}

/**
 * Input tokens as the API reports them: with cache breakpoints in the request, the part up to the
 * last tool and the system prompt is written to the cache the first time and read from it after.
 */
function inputUsage(state: ServerState, request: Record<string, unknown>): AnthropicMeta["usage"] {
  const total = Math.max(1, Math.ceil(JSON.stringify([request.system, request.messages, request.tools]).length / 4));
  const prefix = JSON.stringify([request.tools, request.system]);
  if (!prefix.includes('"cache_control"')) {
    return { input_tokens: total, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
  }
  const cached = Math.min(total, Math.ceil(prefix.length / 4));
  const seen = state.cachePrefixes.has(prefix);
  state.cachePrefixes.add(prefix);
  return {
    input_tokens: total - cached,
    cache_creation_input_tokens: seen ? 0 : cached,
    cache_read_input_tokens: seen ? cached : 0,
  };
}
