import { env } from "cloudflare:test";
import { parseTraceparent } from "@edgeloop/protocol/trace-context";
import { describe, expect, it } from "vitest";
import { conversationFor } from "../../durable-objects/addresses.js";
import { connectDevice, deviceView, type Frame, uid, waitFor } from "./support/front-door.js";

/**
 * The run's trace context travels with its work: the command frame the hub sends the device names
 * the call's span in the trace whose id the conversation's view shows (docs/tracing.md).
 */
describe("trace context", () => {
  it("a dispatched command carries the run's traceparent, and the view shows its trace id", async () => {
    const dev = await connectDevice("pi-1", "device-secret-1");
    dev.hello();
    await waitFor(
      () => deviceView("pi-1"),
      (v) => v.online,
    );
    const conversationId = uid("conv-trace");
    const stub = conversationFor(env, conversationId);
    const accepted = await stub.callTool({
      conversation_id: conversationId,
      by: { id: "api", scoped: false, reach: "*" },
      agent_id: "pi-1",
      message_id: uid("msg"),
      tool_call_id: "call_trace_1",
      tool: "bash",
      arguments: { command: "uptime" },
    });
    expect(accepted).toMatchObject({ ok: true });
    const cmd = (await dev.next((f: Frame) => f.type === "command")) as { payload: { traceparent?: string } };
    const ctx = parseTraceparent(cmd.payload.traceparent);
    expect(ctx).not.toBeNull();
    const view = await stub.getConversation();
    expect(view?.trace_id).toBe(ctx!.trace_id);
    dev.ws.close(1000, "done");
  });
});
