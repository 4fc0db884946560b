/**
 * The soak's HTTP client for the runtime, written as a careful real client would be: every
 * request is retried through runtime restarts (network errors, 5xx, 409 "in progress", 429) with
 * backoff until a deadline; messages carry an Idempotency-Key so a retry never makes a second
 * message. What it had to retry is counted, for the report.
 */
import { API_TOKEN } from "../../test/helpers/local-worker.js";

export type ClientStats = {
  requests: number;
  retries: number;
  networkErrors: number;
  byStatus: Record<string, number>;
  /** "POST /v1/messages 409" and the like: which requests had to be retried, and why */
  retriedBy: Record<string, number>;
};

export class RetryGaveUp extends Error {}

export type Answer = { status: number; body: unknown; headers: Headers };

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class SoakApi {
  readonly stats: ClientStats = { requests: 0, retries: 0, networkErrors: 0, byStatus: {}, retriedBy: {} };
  /** requests under way, by "METHOD kind" (e.g. "POST messages"): the chaos driver times some kills by it */
  readonly inFlight = new Map<string, number>();

  constructor(
    readonly url: string,
    /** how long one logical request may keep retrying */
    private readonly retryForMs: number,
  ) {}

  /**
   * One logical request: retried while the answer is a network error, a 5xx, 429, or 409 with
   * Retry-After (idempotency "in progress"); `done` decides which other answers end it.
   */
  async request(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer> {
    const deadline = Date.now() + this.retryForMs;
    const kind = `${method} ${path.split("/")[2] ?? path}`;
    let delay = 250;
    for (let attempt = 0; ; attempt++) {
      if (attempt > 0) this.stats.retries++;
      this.stats.requests++;
      let answer: Answer | null = null;
      this.inFlight.set(kind, (this.inFlight.get(kind) ?? 0) + 1);
      try {
        const res = await fetch(`${this.url}${path}`, {
          method,
          headers: {
            authorization: `Bearer ${API_TOKEN}`,
            ...(body !== undefined ? { "content-type": "application/json" } : {}),
            ...headers,
          },
          body: body === undefined ? undefined : JSON.stringify(body),
          signal: AbortSignal.timeout(30_000),
        });
        const text = await res.text();
        let parsed: unknown = text;
        try {
          parsed = JSON.parse(text);
        } catch {
          // not JSON: kept as text
        }
        answer = { status: res.status, body: parsed, headers: res.headers };
        this.stats.byStatus[res.status] = (this.stats.byStatus[res.status] ?? 0) + 1;
      } catch {
        this.stats.networkErrors++;
      } finally {
        this.inFlight.set(kind, this.inFlight.get(kind)! - 1);
      }
      const retryable =
        answer === null ||
        answer.status >= 500 ||
        answer.status === 429 ||
        (answer.status === 409 && answer.headers.get("retry-after") !== null);
      if (!retryable) return answer!;
      const why = `${kind} ${answer ? answer.status : "network error"}`;
      this.stats.retriedBy[why] = (this.stats.retriedBy[why] ?? 0) + 1;
      if (Date.now() > deadline)
        throw new RetryGaveUp(
          `${method} ${path}: still failing after ${Math.round(this.retryForMs / 1000)} s (last: ${answer ? `${answer.status} ${JSON.stringify(answer.body).slice(0, 200)}` : "network error"})`,
        );
      const retryAfter = Number(answer?.headers.get("retry-after") ?? "");
      await sleep(Number.isFinite(retryAfter) && retryAfter > 0 ? Math.min(retryAfter * 1000, 5_000) : delay);
      delay = Math.min(delay * 2, 2_000);
    }
  }

  async postMessage(
    body: { agent_id: string; conversation_id: string; text: string },
    idempotencyKey: string,
  ): Promise<{ conversation_id: string; message_id: string; replayed: boolean }> {
    const a = await this.request("POST", "/v1/messages", body, { "idempotency-key": idempotencyKey });
    if (a.status !== 202) throw new Error(`POST /v1/messages answered ${a.status}: ${JSON.stringify(a.body)}`);
    const b = a.body as { conversation_id: string; message_id: string };
    return { ...b, replayed: a.headers.get("idempotent-replayed") === "true" };
  }

  /** "applied", or "settled" when the call was not waiting any more (a decision already made). */
  async decide(conversationId: string, callId: string, approve: boolean): Promise<"applied" | "settled" | "missing"> {
    const a = await this.request("POST", `/v1/conversations/${conversationId}/approvals/${callId}`, {
      approve,
      ...(approve ? {} : { reason: "the soak's script says no" }),
    });
    return outcomeOf(a, "approval");
  }

  async answer(conversationId: string, callId: string, text: string): Promise<"applied" | "settled" | "missing"> {
    const a = await this.request("POST", `/v1/conversations/${conversationId}/answers/${callId}`, { answer: text });
    return outcomeOf(a, "answer");
  }

  async get<T>(path: string): Promise<T | null> {
    const a = await this.request("GET", path);
    if (a.status === 404) return null;
    if (a.status !== 200) throw new Error(`GET ${path} answered ${a.status}: ${JSON.stringify(a.body)}`);
    return a.body as T;
  }
}

function outcomeOf(a: Answer, what: string): "applied" | "settled" | "missing" {
  if (a.status === 200) return "applied";
  if (a.status === 409) return "settled";
  if (a.status === 404) return "missing";
  throw new Error(`${what} answered ${a.status}: ${JSON.stringify(a.body)}`);
}
