import {
  ConversationStatus,
  MessageOptions,
  MessageRequest,
  Problem,
  ToolCallSummary,
  WaitQuery,
  WaitReply,
} from "@edgeloop/protocol/http-bodies";
import { describe, expect, it } from "vitest";

/** `POST /v1/messages`'s body as the API reads it: what a client may send and the message each refusal carries. */
const issues = (body: unknown) => {
  const r = MessageRequest.safeParse(body);
  return r.success ? [] : r.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
};

describe("a message request", () => {
  it("takes a device, text and the optional parts", () => {
    const body = {
      agent_id: "pi-1",
      text: "hello",
      conversation_id: "conv_1",
      options: { max_iterations: 3, citations: true },
      reply_url: "https://example.com/hook",
      reply_events: true,
      images: [{ type: "image", source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" } }],
    };
    expect(MessageRequest.parse(body)).toEqual(body);
    expect(issues({ agent_id: "pi-1", text: "x", reply_url: "http://10.0.0.1:8080/x" })).toEqual([]);
  });

  it("refuses empty text, with a message a person can act on", () => {
    expect(issues({ agent_id: "pi-1", text: "" })).toEqual(["text: must not be empty"]);
  });

  it("takes a reply URL only when it is http or https", () => {
    for (const url of ["ftp://example.com/x", "javascript:alert(1)", "mailto:a@example.com", "file:///etc/passwd"])
      expect(issues({ agent_id: "pi-1", text: "x", reply_url: url }), url).toEqual([
        "reply_url: must be an http(s) URL",
      ]);
    // The scheme must start the URL: a URL that only mentions http:// later is not one.
    expect(issues({ agent_id: "pi-1", text: "x", reply_url: "ftp://example.com/?next=http://x" })).toEqual([
      "reply_url: must be an http(s) URL",
    ]);
  });

  it("refuses an unknown field, in the body and in its options", () => {
    expect(issues({ agent_id: "pi-1", text: "x", extra: 1 }).length).toBe(1);
    expect(MessageOptions.safeParse({ max_iterations: 1, unknown: true }).success).toBe(false);
  });

  it("needs exactly one target", () => {
    expect(issues({ text: "x" })).toEqual(["agent_id: give exactly one of agent_id, agent_ids or pool"]);
    expect(issues({ agent_id: "a", pool: "p", text: "x" })).toEqual([
      "agent_id: give exactly one of agent_id, agent_ids or pool",
    ]);
  });

  it("reads ?wait= as 0 to 60 whole seconds", () => {
    expect(WaitQuery.parse("0")).toBe(0);
    expect(WaitQuery.parse("60")).toBe(60);
    for (const bad of ["61", "-1", "1.5", "x"]) expect(WaitQuery.safeParse(bad).success, bad).toBe(false);
  });
});

/** Each bound of the body, at its edge: the last value taken and the first refused. */
describe("a message request's bounds", () => {
  const body = (extra: Record<string, unknown>) => ({ agent_id: "pi-1", text: "x", ...extra });
  const ok = (extra: Record<string, unknown>) => MessageRequest.safeParse(body(extra)).success;
  const image = { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" } };

  it.each([
    ["max_iterations", 1, 100],
    ["tool_error_limit", 1, 100],
    ["max_tokens", 1, 100_000_000],
    ["max_wall_ms", 1000, 7 * 24 * 3600 * 1000],
  ])("takes options.%s from %d to %d whole", (name, low, high) => {
    expect(ok({ options: { [name]: low } })).toBe(true);
    expect(ok({ options: { [name]: high } })).toBe(true);
    expect(ok({ options: { [name]: low - 1 } })).toBe(false);
    expect(ok({ options: { [name]: high + 1 } })).toBe(false);
    expect(ok({ options: { [name]: low + 0.5 } })).toBe(false);
    expect(ok({ options: { [name]: String(low) } })).toBe(false);
  });

  it("takes a week as the longest wall time, not a number near it", () => {
    expect(MessageOptions.parse({ max_wall_ms: 604_800_000 })).toEqual({ max_wall_ms: 604_800_000 });
    expect(MessageOptions.safeParse({ max_wall_ms: 604_800_001 }).success).toBe(false);
  });

  it("takes citations and reply_events only as booleans", () => {
    expect(ok({ options: { citations: false }, reply_url: "https://example.com/", reply_events: false })).toBe(true);
    expect(ok({ options: { citations: "yes" } })).toBe(false);
    expect(ok({ reply_url: "https://example.com/", reply_events: "yes" })).toBe(false);
  });

  it("takes text up to 32,000 characters", () => {
    expect(ok({ text: "x".repeat(32_000) })).toBe(true);
    expect(ok({ text: "x".repeat(32_001) })).toBe(false);
  });

  it("takes 1 to 16 images", () => {
    expect(ok({ images: [image] })).toBe(true);
    expect(ok({ images: Array(16).fill(image) })).toBe(true);
    expect(ok({ images: [] })).toBe(false);
    expect(ok({ images: Array(17).fill(image) })).toBe(false);
  });

  it("refuses a reply URL that is not a URL at all", () => {
    expect(ok({ reply_url: "https://" })).toBe(false);
    expect(ok({ reply_url: "http//example.com" })).toBe(false);
  });

  it("refuses a conversation id that is not an identifier", () => {
    expect(ok({ conversation_id: "a b" })).toBe(false);
    expect(ok({ conversation_id: "" })).toBe(false);
  });
});

/** The API's answers as a client (the CLI, the OpenAPI document's readers) reads them. */
describe("the answers", () => {
  const call = {
    id: "call_1",
    name: "bash",
    arguments: { command: "ls" },
    status: "success",
    error_type: "timeout",
    elapsed_ms: 12,
    approval_wait_ms: 3400,
    decided_by: "rule:r1",
  };
  const reply = { conversation_id: "c1", message_id: "m1", reply: "done", tool_calls: [call], iterations: 2 };

  it("names a conversation's status with one of five words", () => {
    for (const status of ["idle", "running", "completed", "failed", "cancelled"]) {
      expect(ConversationStatus.parse(status)).toBe(status);
      expect(WaitReply.safeParse({ ...reply, status }).success, status).toBe(true);
    }
    for (const status of ["", "done", "Completed"]) expect(ConversationStatus.safeParse(status).success).toBe(false);
  });

  it("gives each tool call whole, with one of four statuses", () => {
    for (const status of ["pending", "success", "error", "blocked"])
      expect(ToolCallSummary.parse({ ...call, status })).toEqual({ ...call, status });
    for (const status of ["", "ok", "approved"])
      expect(ToolCallSummary.safeParse({ ...call, status }).success).toBe(false);
    expect(ToolCallSummary.safeParse({ ...call, id: 1 }).success).toBe(false);
  });

  it("names each failing field of a refused request by its path", () => {
    const problem = {
      type: "about:blank",
      title: "Bad Request",
      status: 400,
      errors: [{ path: "text", message: "must not be empty" }],
    };
    expect(Problem.parse(problem)).toEqual(problem);
    expect(Problem.safeParse({ ...problem, errors: [{ path: "text" }] }).success).toBe(false);
  });
});
