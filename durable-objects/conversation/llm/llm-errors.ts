import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from "openai";
import { retryAfterMillis } from "./retry-after-cap.js";
import type { LlmError } from "./types.js";

/** Whatever the openai client (or the stream) threw, as a value the loop can reason about. */
export function toLlmError(error: unknown, maxRetryAfterMs: number): LlmError {
  if (error instanceof APIConnectionTimeoutError) {
    return { kind: "timeout", message: "LLM request timed out" };
  }
  if (error instanceof APIUserAbortError) {
    return { kind: "network", message: "LLM request aborted" };
  }
  if (error instanceof APIConnectionError) {
    const cause = error.cause instanceof Error ? `: ${error.cause.message}` : "";
    return { kind: "network", message: `${error.message}${cause}` };
  }
  if (error instanceof APIError) {
    if (typeof error.status !== "number") {
      // An error event inside a 200 stream (OpenRouter, vLLM do this on overload).
      return { kind: "invalid_response", message: `provider error in stream: ${error.message}` };
    }
    const result: LlmError = { kind: "http", status: error.status, message: `LLM HTTP error ${error.message}` };
    const wait = retryAfterMillis(error.headers);
    if (wait !== undefined && wait > maxRetryAfterMs) result.retryAfterMs = wait;
    return result;
  }
  if (error instanceof SyntaxError) {
    return { kind: "invalid_response", message: `unreadable response: ${error.message}` };
  }
  const message = error instanceof Error ? error.message : String(error);
  return { kind: "network", message };
}
