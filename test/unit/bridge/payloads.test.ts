import {
  controlCommand,
  interpretReport,
  MqttCommand,
  parseAgentTopic,
  parseStatus,
} from "@edgeloop/protocol/mqtt-payloads";
import { describe, expect, it } from "vitest";

const env = (report_type: string, payload: unknown) => ({
  agent_id: "evo-1",
  agent_type: "pi",
  report_type,
  payload,
  timestamp: 1739635200,
});

describe("interpretReport: both report shapes found in the field", () => {
  it("reads the EvoClaw flat success and error reports (no request_id)", () => {
    expect(
      interpretReport({
        status: "success",
        tool: "bash",
        result: "file1.txt\n",
        stderr: "",
        exit_code: 0,
        elapsed_ms: 123,
      }),
    ).toEqual({
      kind: "tool",
      requestId: undefined,
      tool: "bash",
      shape: "flat",
      outcome: expect.objectContaining({
        status: "success",
        tool: "bash",
        result: "file1.txt\n",
        stderr: "",
        exit_code: 0,
        elapsed_ms: 123,
      }),
    });
    const err = interpretReport({
      status: "error",
      tool: "bash",
      error: "Command timed out after 30000ms",
      error_type: "timeout",
    });
    expect(err).toMatchObject({
      kind: "tool",
      outcome: { status: "error", error: "Command timed out after 30000ms", error_type: "timeout" },
    });
  });

  it("keeps our agent's request_id", () => {
    expect(interpretReport({ status: "success", tool: "bash", result: "x", request_id: "req-1" })).toMatchObject({
      kind: "tool",
      requestId: "req-1",
    });
  });

  it("reads the envelope: result success, failed tool as result/status error without error_type, and error", () => {
    expect(
      interpretReport(
        env("result", { status: "success", tool: "gpio_read", result: "level=1", elapsed_ms: 3, request_id: "r1" }),
      ),
    ).toMatchObject({
      kind: "tool",
      shape: "envelope",
      requestId: "r1",
      outcome: { status: "success", result: "level=1", stderr: "", exit_code: 0 },
    });
    expect(
      interpretReport(
        env("result", { status: "error", tool: "gpio_read", error: "no sensor", elapsed_ms: 2, request_id: "r2" }),
      ),
    ).toMatchObject({
      kind: "tool",
      requestId: "r2",
      outcome: { status: "error", error: "no sensor", error_type: "execution_failed" },
    });
    expect(interpretReport(env("error", { error: "unknown command", request_id: "r3" }))).toMatchObject({
      kind: "tool",
      requestId: "r3",
      outcome: { status: "error", error: "unknown command", error_type: "execution_failed" },
    });
  });

  it("maps an unknown error_type to execution_failed and stringifies a non-string result", () => {
    expect(interpretReport({ status: "error", tool: "t", error: "x", error_type: "weird" })).toMatchObject({
      outcome: { error_type: "execution_failed" },
    });
    expect(interpretReport({ status: "success", tool: "t", result: { a: 1 } })).toMatchObject({
      outcome: { result: '{"a":1}' },
    });
  });

  it("tells heartbeats, metrics, pongs and tools_list answers apart", () => {
    expect(interpretReport(env("heartbeat", { cpu: 3 }))).toEqual({ kind: "heartbeat", payload: { cpu: 3 } });
    expect(interpretReport(env("metric", {}))).toEqual({ kind: "other", reportType: "metric" });
    expect(interpretReport(env("result", { pong: true }))).toEqual({ kind: "pong" });
    expect(interpretReport({ pong: true })).toEqual({ kind: "pong" });
    const tools = interpretReport(
      env("result", { tools: [{ name: "a", description: "A", parameters: {} }], count: 1, request_id: "t1" }),
    );
    expect(tools).toMatchObject({ kind: "tools", answer: { tools: [{ name: "a" }], request_id: "t1" } });
  });

  it("never throws on garbage: it says what is wrong", () => {
    for (const bad of [
      null,
      3,
      "x",
      [],
      {},
      { status: "maybe" },
      { report_type: 5 },
      env("result", { status: "success" }).payload,
    ]) {
      expect(() => interpretReport(bad)).not.toThrow();
    }
    expect(interpretReport({ status: "maybe" })).toMatchObject({ kind: "invalid" });
    expect(interpretReport(env("result", { status: "error", tool: "bad tool name!", error: "x" }))).toMatchObject({
      kind: "invalid",
    });
  });
});

describe("status and topics", () => {
  it("reads plain and JSON status", () => {
    expect(parseStatus("online")).toBe("online");
    expect(parseStatus(" offline\n")).toBe("offline");
    expect(parseStatus('{"status":"online","ts":1}')).toBe("online");
    expect(parseStatus('"offline"')).toBe("offline");
    expect(parseStatus("{broken")).toBeNull();
    expect(parseStatus("busy")).toBeNull();
  });

  it("parses agent topics and refuses ids we cannot use", () => {
    expect(parseAgentTopic("evoclaw/agents/pi-1/reports")).toEqual({ agentId: "pi-1", kind: "reports" });
    expect(parseAgentTopic("evoclaw/agents/pi 1/status")).toBeNull();
    expect(parseAgentTopic("evoclaw/bridges/b/status")).toBeNull();
  });
});

describe("commands", () => {
  it("require command, payload and request_id, as EvoClaw's agent does", () => {
    expect(MqttCommand.safeParse({ command: "tools_list", request_id: "t-1" }).success).toBe(false);
    expect(MqttCommand.safeParse({ command: "cancel", payload: {} }).success).toBe(false);
    expect(controlCommand("tools_list", "t-1")).toEqual({ command: "tools_list", payload: {}, request_id: "t-1" });
    expect(MqttCommand.safeParse(controlCommand("ping", "p-1")).success).toBe(true);
  });
});
