import type { APIError } from "@anthropic-ai/sdk";
import { retryAfterMillis } from "./retry-after-cap.js";
import type { LlmError } from "./types.js";

/**
 * Whatever the Anthropic client (or its stream) threw, as a value the loop can reason about.
 * The same classes as the openai client's (llm-errors.ts), from the other SDK. The API names
 * the kind of failure in the body (`overloaded_error` with 529, `rate_limit_error` with 429…);
 * it goes into the message, so a run that fails says why. The classes come from the SDK as
 * anthropic-client.ts loaded it.
 */
export function anthropicLlmError(
  sdk: typeof import("@anthropic-ai/sdk"),
  error: unknown,
  maxRetryAfterMs: number,
): LlmError {
  const { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } = sdk;
  if (error instanceof APIConnectionTimeoutError) return { kind: "timeout", message: "LLM request timed out" };
  if (error instanceof APIUserAbortError) return { kind: "network", message: "LLM request aborted" };
  if (error instanceof APIConnectionError) {
    const cause = error.cause instanceof Error ? `: ${error.cause.message}` : "";
    return { kind: "network", message: `${error.message}${cause}` };
  }
  if (error instanceof APIError) {
    const what = describe(error);
    if (typeof error.status !== "number") {
      // An `error` event inside a 200 stream: the API sends `overloaded_error` this way too.
      return { kind: "invalid_response", message: `provider error in stream: ${what}` };
    }
    const result: LlmError = { kind: "http", status: error.status, message: `LLM HTTP error ${error.status}: ${what}` };
    const wait = retryAfterMillis(error.headers);
    if (wait !== undefined && wait > maxRetryAfterMs) result.retryAfterMs = wait;
    return result;
  }
  if (error instanceof SyntaxError)
    return { kind: "invalid_response", message: `unreadable response: ${error.message}` };
  const message = error instanceof Error ? error.message : String(error);
  return { kind: "network", message };
}

/** `overloaded_error: Overloaded` from the API's `{"type":"error","error":{"type","message"}}` body. */
function describe(error: APIError): string {
  const body = error.error as { error?: { type?: unknown; message?: unknown } } | undefined;
  const type = typeof body?.error?.type === "string" ? body.error.type : error.type;
  const message = typeof body?.error?.message === "string" ? body.error.message : null;
  return [type, message].filter((s) => s).join(": ") || error.message;
}
