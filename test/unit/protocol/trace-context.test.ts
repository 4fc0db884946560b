import { parseHubFrame } from "@edgeloop/protocol/device-frames";
import { MqttToolCommand } from "@edgeloop/protocol/mqtt-payloads";
import {
  formatTraceparent,
  parseTraceparent,
  randomSpanId,
  randomTraceId,
  spanIdFor,
} from "@edgeloop/protocol/trace-context";
import { describe, expect, it } from "vitest";

const TP = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

describe("traceparent", () => {
  it("round-trips a W3C traceparent and reads the sampled flag", () => {
    const ctx = parseTraceparent(TP);
    expect(ctx).toEqual({ trace_id: "4bf92f3577b34da6a3ce929d0e0e4736", span_id: "00f067aa0ba902b7", sampled: true });
    expect(formatTraceparent(ctx!)).toBe(TP);
    expect(parseTraceparent(TP.replace(/-01$/, "-00"))?.sampled).toBe(false);
  });

  it("refuses other versions, wrong lengths and the all-zero ids the spec calls invalid", () => {
    for (const bad of [
      "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
      "00-4bf92f3577b34da6a3ce929d0e0e473-00f067aa0ba902b7-01",
      `00-${"0".repeat(32)}-00f067aa0ba902b7-01`,
      `00-4bf92f3577b34da6a3ce929d0e0e4736-${"0".repeat(16)}-01`,
      "",
      null,
    ]) {
      expect(parseTraceparent(bad)).toBeNull();
    }
  });

  it("makes valid random ids and stable derived span ids", () => {
    expect(randomTraceId()).toMatch(/^[0-9a-f]{32}$/);
    expect(randomSpanId()).toMatch(/^[0-9a-f]{16}$/);
    const a = spanIdFor("4bf92f3577b34da6a3ce929d0e0e4736", "tool:c1");
    expect(a).toMatch(/^[0-9a-f]{16}$/);
    expect(spanIdFor("4bf92f3577b34da6a3ce929d0e0e4736", "tool:c1")).toBe(a);
    expect(spanIdFor("4bf92f3577b34da6a3ce929d0e0e4736", "tool:c2")).not.toBe(a);
  });

  it("derives span ids by 64-bit FNV-1a over the code points, as a BigInt computes it", () => {
    // The reference: the definition, one BigInt step per code point.
    const fnv1a = (text: string) => {
      let h = 0xcbf29ce484222325n;
      for (const ch of text) {
        h ^= BigInt(ch.codePointAt(0) ?? 0);
        h = (h * 0x100000001b3n) & 0xffffffffffffffffn;
      }
      return h.toString(16).padStart(16, "0");
    };
    const keys = ["run", "tool:c1", "llm:0", "", "tool:call_ÿ€😀", "x".repeat(300), "tool:\u{10ffff}\uffff"];
    for (const key of keys)
      expect(spanIdFor("4bf92f3577b34da6a3ce929d0e0e4736", key)).toBe(fnv1a(`4bf92f3577b34da6a3ce929d0e0e4736/${key}`));
    for (let i = 0; i < 200; i++) {
      const trace = randomTraceId();
      const key = `tool:${String.fromCodePoint(...Array.from({ length: i % 40 }, (_, j) => (i * 7919 + j * 104729) % 0x110000).filter((c) => c < 0xd800 || c > 0xdfff))}`;
      expect(spanIdFor(trace, key)).toBe(fnv1a(`${trace}/${key}`));
    }
  });
});

describe("traceparent in the tool command", () => {
  const command = (traceparent?: string) => ({
    command: "tool",
    request_id: "r1",
    payload: {
      tool: "bash",
      parameters: {},
      timeout_ms: 1000,
      request_id: "r1",
      ...(traceparent ? { traceparent } : {}),
    },
  });

  it("is kept by both the WebSocket frame and EvoClaw's MQTT shape", () => {
    const frame = parseHubFrame(JSON.stringify({ type: "command", ...command(TP) }));
    expect(
      frame.ok && frame.value.type === "command" && frame.value.command === "tool" && frame.value.payload.traceparent,
    ).toBe(TP);
    expect(MqttToolCommand.parse(command(TP)).payload.traceparent).toBe(TP);
  });

  it("is optional, and a malformed one is dropped rather than refusing the command", () => {
    expect(MqttToolCommand.parse(command()).payload.traceparent).toBeUndefined();
    const frame = parseHubFrame(JSON.stringify({ type: "command", ...command("not-a-traceparent") }));
    expect(frame.ok).toBe(true);
    expect(
      frame.ok && frame.value.type === "command" && frame.value.command === "tool" && frame.value.payload.traceparent,
    ).toBeUndefined();
  });
});
