import type { ToolOutcome } from "@edgeloop/protocol";
import { signHmacWebhook } from "@edgeloop/protocol/webhook-signatures";
import { guardedFetch, OutboundRefused } from "../../../runtime/guarded-fetch.js";
import { checkOutboundUrl, type OutboundUrlPolicy } from "../../../runtime/outbound-url.js";
import { capUtf8, readCappedBody } from "./capped-body.js";
import { backoffDelayMs, retryAfterMs } from "./retry-delay.js";
import { success, toolError } from "./types.js";
import type { WebhookTool } from "./webhook-config.js";

export const MAX_WEBHOOK_RESPONSE_BYTES = 64 * 1024;
const ERROR_SNIPPET_BYTES = 1024;

export type WebhookCallContext = {
  request_id: string;
  tool_call_id: string;
  conversation_id: string;
  /** what the tool's URL (and its redirects) may reach; see runtime/outbound-url.ts */
  outbound: OutboundUrlPolicy;
  fetch?: typeof fetch;
  sleep?: (ms: number) => Promise<void>;
  now: () => number;
};

type Attempt =
  | { kind: "ok"; body: { text: string; truncated: boolean } }
  | { kind: "retryable"; detail: string; delayMs: number | null }
  | { kind: "final"; outcome: ToolOutcome };

/**
 * Calls one webhook tool: a signed JSON POST, retried with backoff
 * on 5xx, 429 and network errors, every attempt under its own timeout. Errors come back as
 * tool errors for the model; nothing here throws for a failing endpoint.
 */
export async function runWebhookTool(
  tool: WebhookTool,
  args: Record<string, unknown>,
  ctx: WebhookCallContext,
): Promise<ToolOutcome> {
  const started = ctx.now();
  const refusal = refuseUrl(tool, ctx.outbound);
  if (refusal !== null) return refusal;

  // Redirects are followed one hop at a time, each checked by the same rule.
  const doFetch = guardedFetch(ctx.outbound, ctx.fetch ?? fetch);
  const sleep = ctx.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  // One body for every attempt: the receiver sees the same request, recognisable by Idempotency-Key.
  const body = JSON.stringify({
    tool: tool.name,
    arguments: args,
    request_id: ctx.request_id,
    conversation_id: ctx.conversation_id,
    tool_call_id: ctx.tool_call_id,
  });

  let lastFailure = "";
  const attempts = tool.max_retries + 1;
  for (let attempt = 0; attempt < attempts; attempt++) {
    const result = await attemptOnce(tool, body, ctx, doFetch);
    if (result.kind === "final") return result.outcome;
    if (result.kind === "ok") return successOutcome(tool.name, result.body, ctx.now() - started);
    lastFailure = result.detail;
    if (attempt < attempts - 1) await sleep(result.delayMs ?? backoffDelayMs(attempt));
  }
  return toolError(
    tool.name,
    `webhook ${tool.name} failed after ${attempts} attempt${attempts === 1 ? "" : "s"}: ${lastFailure}`,
  );
}

function refuseUrl(tool: WebhookTool, outbound: OutboundUrlPolicy): ToolOutcome | null {
  const check = checkOutboundUrl(tool.url, outbound);
  if (check.ok) return null;
  return check.kind === "invalid"
    ? toolError(tool.name, `webhook ${tool.name} has an invalid URL`, "invalid_params")
    : toolError(tool.name, `webhook ${tool.name} refused: ${check.reason}`, "permission_denied");
}

async function attemptOnce(
  tool: WebhookTool,
  body: string,
  ctx: WebhookCallContext,
  doFetch: ReturnType<typeof guardedFetch>,
): Promise<Attempt> {
  const headers = new Headers(tool.headers);
  headers.set("Content-Type", "application/json");
  headers.set("Idempotency-Key", ctx.request_id);
  if (tool.secret !== undefined) {
    // Signed per attempt with a fresh timestamp, so a retry after a long backoff is not stale.
    const timestamp = String(Math.floor(ctx.now() / 1000));
    headers.set("X-Webhook-Timestamp", timestamp);
    headers.set("X-Webhook-Signature", await signHmacWebhook(tool.secret, timestamp, body));
  }

  let response: Response;
  try {
    response = await doFetch(tool.url, {
      method: tool.method,
      headers,
      body,
      signal: AbortSignal.timeout(tool.timeout_secs * 1000),
    });
  } catch (e) {
    if (e instanceof OutboundRefused)
      return {
        kind: "final",
        outcome: toolError(tool.name, `webhook ${tool.name} refused: ${e.message}`, "permission_denied"),
      };
    return fetchFailure(tool, e as Error);
  }

  if (response.status >= 200 && response.status < 300) {
    // The body is read under the same per-attempt timeout as the headers.
    try {
      return { kind: "ok", body: await readCappedBody(response, MAX_WEBHOOK_RESPONSE_BYTES) };
    } catch (e) {
      return fetchFailure(tool, e as Error);
    }
  }

  const snippet = await errorSnippet(response);
  const detail = `HTTP ${response.status}${snippet === "" ? "" : `: ${snippet}`}`;
  if (response.status === 429)
    return { kind: "retryable", detail, delayMs: retryAfterMs(response.headers.get("Retry-After"), ctx.now()) };
  if (response.status >= 500) return { kind: "retryable", detail, delayMs: null };
  return { kind: "final", outcome: toolError(tool.name, `webhook ${tool.name} answered ${detail}`) };
}

function fetchFailure(tool: WebhookTool, err: Error): Attempt {
  if (err.name === "TimeoutError" || err.name === "AbortError") {
    // Not retried: the endpoint may still be working on it, and retrying would multiply the wait.
    return {
      kind: "final",
      outcome: toolError(tool.name, `webhook ${tool.name} did not answer within ${tool.timeout_secs}s`, "timeout"),
    };
  }
  return { kind: "retryable", detail: `network error: ${describeError(err)}`, delayMs: null };
}

function successOutcome(toolName: string, read: { text: string; truncated: boolean }, elapsedMs: number): ToolOutcome {
  let text = read.text;
  if (!read.truncated) text = prettyIfJson(text);
  const capped = capUtf8(text, MAX_WEBHOOK_RESPONSE_BYTES);
  const truncated = read.truncated || capped.truncated;
  const result = truncated
    ? `${capped.text}\n[response truncated: only the first ${MAX_WEBHOOK_RESPONSE_BYTES} bytes are shown]`
    : capped.text;
  return { ...success(toolName, result), elapsed_ms: elapsedMs, ...(truncated ? { truncated: true } : {}) };
}

function prettyIfJson(text: string): string {
  const trimmed = text.trim();
  if (!(trimmed.startsWith("{") || trimmed.startsWith("["))) return text;
  try {
    return JSON.stringify(JSON.parse(trimmed), null, 2);
  } catch {
    return text;
  }
}

async function errorSnippet(response: Response): Promise<string> {
  try {
    const read = await readCappedBody(response, ERROR_SNIPPET_BYTES);
    const text = read.text.trim();
    return read.truncated ? `${text}…` : text;
  } catch {
    return "";
  }
}

function describeError(err: Error): string {
  // undici puts the useful part (ECONNREFUSED, ...) in `cause`.
  const cause = (err as Error & { cause?: unknown }).cause;
  const causeText = cause instanceof Error ? cause.message : typeof cause === "string" ? cause : "";
  return causeText !== "" && causeText !== err.message ? `${err.message} (${causeText})` : err.message;
}
