import type { IncomingMessage, ServerResponse } from "node:http";
import { chooseTurn } from "./choose-turn.js";
import { viewConversation } from "./conversation-view.js";
import { preciseNow, readJson, sendJson, sleep, startSse } from "./http-io.js";
import { chatRequestProblem } from "./openai-checks.js";
import { completionBody, type ResponseMeta, resolveTurn, streamChunks } from "./render-response.js";
import type { ScriptedRequest } from "./scripted-request.js";
import { ambiguityMessage, failureToServe, type ServerState, scriptFor } from "./server-state.js";

/** `POST …/chat/completions`: the scripted turn in OpenAI's Chat Completions format. */
export async function answerChatCompletions(
  state: ServerState,
  req: IncomingMessage,
  res: ServerResponse,
  record: Omit<ScriptedRequest, "body" | "received_ms" | "at">,
): Promise<void> {
  const body = await readJson(req);
  if (!body.ok) return sendJson(res, 400, openAiError(body.error, "invalid_request_error"));
  const entry: ScriptedRequest = {
    ...record,
    at: new Date().toISOString(),
    body: body.value,
    received_ms: preciseNow(),
  };
  state.requests.push(entry);
  res.once("finish", () => (entry.answered_ms = preciseNow()));
  const request = (typeof body.value === "object" && body.value !== null ? body.value : {}) as Record<string, unknown>;
  if (!Array.isArray(request.messages)) {
    return sendJson(res, 400, openAiError("'messages' is required", "invalid_request_error"));
  }
  const problem = chatRequestProblem(request.messages);
  if (problem) return sendJson(res, 400, openAiError(problem, "invalid_request_error"));
  const view = viewConversation(request);
  const script = scriptFor(state, view, entry);
  if ("ambiguous" in script) {
    return sendJson(res, 400, openAiError(ambiguityMessage(script.ambiguous), "invalid_request_error"));
  }
  const choice = chooseTurn(script.rules, view);
  if (choice.turn.delay_ms) await sleep(choice.turn.delay_ms);
  const failure = failureToServe(script, choice, view);
  if (failure) {
    const headers: Record<string, string> = {};
    if (failure.retry_after !== undefined) headers["retry-after"] = String(failure.retry_after);
    const type =
      failure.status === 429 ? "rate_limit_exceeded" : failure.status >= 500 ? "server_error" : "invalid_request_error";
    return sendJson(res, failure.status, openAiError(failure.message ?? `scripted ${failure.status}`, type), headers);
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

  startSse(res);
  const chunks = streamChunks(resolved, meta);
  for (const [i, chunk] of chunks.entries()) {
    if (res.destroyed) return;
    res.write(`data: ${JSON.stringify(chunk)}\n\n`);
    // Yield between events so they leave as separate writes, like a real token stream.
    await sleep(i === 0 && resolved.quirks.stall_after_first_chunk_ms ? resolved.quirks.stall_after_first_chunk_ms : 0);
  }
  res.end("data: [DONE]\n\n");
}

export function openAiError(message: string, type: string) {
  return { error: { message, type, param: null, code: type } };
}

function toolsLength(tools: unknown): number {
  return Array.isArray(tools) && tools.length > 0 ? JSON.stringify(tools).length : 0;
}
