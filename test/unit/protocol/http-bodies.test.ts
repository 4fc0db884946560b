import { MessageOptions, MessageRequest, WaitQuery } from "@edgeloop/protocol/http-bodies";
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
