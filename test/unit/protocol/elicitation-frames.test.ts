/**
 * The frames of a device MCP server's question (docs/protocol.md#elicitation): `elicitation`
 * (device → hub) and `elicitation_answer` (hub → device), each read through the union its side
 * parses, and the reply a server gets made from the answer and back.
 */
import {
  ElicitationAnswerFrame,
  ElicitationFrame,
  elicitationAnswerFrame,
  parseDeviceFrame,
  parseHubFrame,
  replyOf,
} from "@edgeloop/protocol";
import { describe, expect, it } from "vitest";

const question = {
  type: "elicitation",
  request_id: "msg-1.0.0",
  elicitation_id: "2f4c8a1e-0b1d-4c55-9a0e-6f1d2b3c4d5e",
  server: "ask",
  message: "Who is the table for?",
  requested_schema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
};
const ids = { request_id: "msg-1.0.0", elicitation_id: question.elicitation_id };

describe("elicitation (device → hub)", () => {
  it("is a device frame, the schema passed on as the server sent it", () => {
    const parsed = parseDeviceFrame(JSON.stringify(question));
    expect(parsed).toEqual({ ok: true, value: question });
  });

  it("is refused without the ids that tie it to a call, with a bad id, or without a schema object", () => {
    const { request_id: _r, ...noRequest } = question;
    const { elicitation_id: _e, ...noId } = question;
    for (const bad of [
      noRequest,
      noId,
      { ...question, request_id: "has space" },
      { ...question, requested_schema: "name" },
      { ...question, server: "" },
      { ...question, message: "x".repeat(8_001) },
    ]) {
      const parsed = parseDeviceFrame(JSON.stringify(bad));
      expect(parsed.ok, JSON.stringify(bad).slice(0, 80)).toBe(false);
    }
    expect(ElicitationFrame.safeParse(question).success).toBe(true);
  });
});

describe("elicitation_answer (hub → device)", () => {
  it("carries accept with its content, decline, or cancel", () => {
    const accept = elicitationAnswerFrame(ids, { action: "accept", content: { name: "Ada", guests: 2, vip: true } });
    expect(accept).toEqual({
      type: "elicitation_answer",
      ...ids,
      action: "accept",
      content: { name: "Ada", guests: 2, vip: true },
    });
    for (const frame of [
      accept,
      elicitationAnswerFrame(ids, { action: "decline" }),
      elicitationAnswerFrame(ids, { action: "cancel" }),
    ]) {
      const parsed = parseHubFrame(JSON.stringify(frame));
      expect(parsed).toEqual({ ok: true, value: frame });
    }
  });

  it("gives the server exactly the reply it was made from", () => {
    const content = { name: "Ada", tags: ["a", "b"] };
    expect(replyOf(elicitationAnswerFrame(ids, { action: "accept", content }))).toEqual({ action: "accept", content });
    expect(replyOf(elicitationAnswerFrame(ids, { action: "decline" }))).toEqual({ action: "decline" });
    // A decline carries no content, even when a sender put one in.
    const parsed = ElicitationAnswerFrame.parse({
      type: "elicitation_answer",
      ...ids,
      action: "decline",
      content: { x: 1 },
    });
    expect(replyOf(parsed)).toEqual({ action: "decline" });
  });

  it("is refused for an accept without content, an unknown action, content that is not form values, or no ids", () => {
    for (const bad of [
      { type: "elicitation_answer", ...ids, action: "accept" },
      { type: "elicitation_answer", ...ids, action: "maybe" },
      { type: "elicitation_answer", ...ids, action: "accept", content: { nested: { a: 1 } } },
      { type: "elicitation_answer", ...ids, action: "accept", content: { list: [1, 2] } },
      { type: "elicitation_answer", request_id: ids.request_id, action: "cancel" },
    ]) {
      expect(parseHubFrame(JSON.stringify(bad)).ok, JSON.stringify(bad)).toBe(false);
    }
  });
});
