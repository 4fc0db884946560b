/**
 * parseHubFrame and parseDeviceFrame parse the usual frame (a tool command, a result) by its own
 * schema: for every text they must answer exactly what parsing with the whole union answers, the
 * value (defaults filled, unknown keys dropped) and the error alike.
 */

import { DeviceFrame, HubFrame, parseDeviceFrame, parseHubFrame, parseJson } from "@edgeloop/protocol";
import { describe, expect, it } from "vitest";

const command = {
  type: "command",
  command: "tool",
  request_id: "req-1",
  payload: { tool: "bash", parameters: { command: "ls" }, timeout_ms: 30000, request_id: "req-1" },
};
const success = { type: "result", request_id: "req-1", status: "success", tool: "bash", result: "ok\n" };
const failure = {
  type: "result",
  request_id: "req-1",
  status: "error",
  tool: "bash",
  error: "x",
  error_type: "timeout",
};

const hubTexts: [string, string][] = [
  ["a tool command", JSON.stringify(command)],
  ["a tool command with an unknown key", JSON.stringify({ ...command, extra: 1 })],
  [
    "a tool command with a zero timeout",
    JSON.stringify({ ...command, payload: { ...command.payload, timeout_ms: 0 } }),
  ],
  ["a tool command without a payload", JSON.stringify({ type: "command", command: "tool", request_id: "r" })],
  ["a tool command with a bad id", JSON.stringify({ ...command, request_id: "has space" })],
  ["a cancel", JSON.stringify({ type: "command", command: "cancel", request_id: "req-1" })],
  ["an ack", JSON.stringify({ type: "ack", request_ids: ["a", "b"] })],
  [
    "an elicitation answer",
    JSON.stringify({ type: "elicitation_answer", request_id: "r", elicitation_id: "e", action: "accept", content: {} }),
  ],
  ["an unknown type", JSON.stringify({ type: "tool", command: "tool" })],
  ["an array", "[]"],
  ["null", "null"],
  ["a string", '"command"'],
  ["malformed JSON", "{nope"],
];

const deviceTexts: [string, string][] = [
  ["a success without its defaults", JSON.stringify(success)],
  [
    "a success with everything",
    JSON.stringify({ ...success, stderr: "w", exit_code: 0, elapsed_ms: 3, truncated: false }),
  ],
  ["a success with an unknown key", JSON.stringify({ ...success, extra: true })],
  ["an error", JSON.stringify(failure)],
  ["an error with an unknown error type", JSON.stringify({ ...failure, error_type: "nope" })],
  ["a result with an unknown status", JSON.stringify({ ...success, status: "maybe" })],
  ["a result without a tool", JSON.stringify({ ...success, tool: undefined })],
  ["a progress", JSON.stringify({ type: "progress", request_id: "r", content: [{ type: "text", text: "1" }] })],
  ["a hello", JSON.stringify({ type: "hello", protocol: 1, agent_id: "pi-1", version: "1" })],
  [
    "an elicitation",
    JSON.stringify({
      type: "elicitation",
      request_id: "r",
      elicitation_id: "e",
      server: "s",
      message: "?",
      requested_schema: {},
    }),
  ],
  ["null", "null"],
  ["malformed JSON", '{"type":"result"'],
];

describe("protocol: frame parsers that prefer the usual frame", () => {
  it.each(hubTexts)("parseHubFrame answers as the union does: %s", (_name, text) => {
    expect(parseHubFrame(text)).toEqual(parseJson(HubFrame, text));
  });

  it.each(deviceTexts)("parseDeviceFrame answers as the union does: %s", (_name, text) => {
    expect(parseDeviceFrame(text)).toEqual(parseJson(DeviceFrame, text));
  });

  it("fills a result's defaults and drops unknown keys", () => {
    const parsed = parseDeviceFrame(JSON.stringify({ ...success, extra: 1 }));
    expect(parsed).toEqual({
      ok: true,
      value: {
        type: "result",
        request_id: "req-1",
        status: "success",
        tool: "bash",
        result: "ok\n",
        stderr: "",
        exit_code: 0,
        elapsed_ms: 0,
      },
    });
  });
});
