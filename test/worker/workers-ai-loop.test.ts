/**
 * The loop on Workers AI inside workerd: the deployment's default provider (nothing configured
 * but the `AI` binding) chosen by the model settings, the conversation's ModelCalls calling the
 * binding (a stand-in answering in the binding's own form), and the pure core taking a tool
 * round to a reply. Also the Anthropic SDK running in workerd, with the API's stream given by a
 * fetch stand-in, since that path otherwise only runs in Node tests and wrangler dev.
 */

import type { ToolSpec } from "@edgeloop/protocol";
import { describe, expect, it } from "vitest";
import { advance, type Effect, initialState, type LoopState } from "../../durable-objects/conversation/core/index.js";
import { ModelCalls } from "../../durable-objects/conversation/effects/model-calls.js";
import { callLlm } from "../../durable-objects/conversation/llm/index.js";
import { modelSettings } from "../../durable-objects/conversation/settings/model-settings.js";
import { aiStandIn, sseOf } from "./support/ai-standin.js";

const bash: ToolSpec = {
  name: "bash",
  description: "Run a command",
  parameters: { type: "object", properties: { command: { type: "string" } }, required: ["command"] },
  timeout_ms: 30_000,
  max_timeout_ms: 300_000,
  kind: "device",
};

const callsOf = (effects: Effect[]) => effects.filter((e) => e.type === "call_llm");
/** These conversations hold no images. */
const noImages = { getBase64: () => null };

describe("the loop on Workers AI", () => {
  it("is the default with nothing configured but the binding, and runs a tool round to the reply", async () => {
    const ai = aiStandIn([
      {
        response: "",
        tool_calls: [{ name: "bash", arguments: { command: "uptime" } }],
        usage: { prompt_tokens: 50, completion_tokens: 8 },
      },
      {
        sse: sseOf([
          { response: "The device is " },
          { response: "up 3 days." },
          { response: "", usage: { prompt_tokens: 70, completion_tokens: 6 } },
        ]),
      },
    ]);
    const env = { AI: ai };
    const settings = modelSettings(env);
    expect(settings).toMatchObject({
      ok: true,
      value: { provider: "workers-ai", model: "@cf/meta/llama-3.3-70b-instruct-fp8-fast", unavailable: null },
    });

    const deltas: string[] = [];
    const models = new ModelCalls(env, (d) => deltas.push(d), noImages);
    const now = 1_700_000_000_000;
    let step = advance(
      initialState("conv-ai", "pi-1"),
      { type: "user_message", message_id: "m1", text: "is it up?", tools: [bash] },
      now,
    );
    const ask = async (state: LoopState, effects: Effect[]) => {
      const [effect] = callsOf(effects);
      if (effect?.type !== "call_llm") throw new Error("expected a model call");
      const result = await models.take(effect.call_id, effect.with_tools, state);
      if (!result?.ok) throw new Error(`model call failed: ${JSON.stringify(result)}`);
      return advance(state, { type: "llm_response", call_id: effect.call_id, turn: result.turn }, now);
    };
    step = await ask(step.state, step.effects);
    const dispatch = step.effects.find((e) => e.type === "dispatch_tool");
    if (dispatch?.type !== "dispatch_tool") throw new Error("expected a dispatch");
    expect(dispatch.parameters).toEqual({ command: "uptime" });
    step = advance(
      step.state,
      {
        type: "tool_result",
        tool_call_id: dispatch.tool_call_id,
        request_id: dispatch.request_id,
        outcome: { status: "success", tool: "bash", result: "up 3 days", stderr: "", exit_code: 0, elapsed_ms: 4 },
      },
      now,
    );
    step = await ask(step.state, step.effects);
    const reply = step.effects.find((e) => e.type === "reply");
    expect(reply?.type === "reply" && reply.reply).toMatchObject({
      status: "completed",
      reply: "The device is up 3 days.",
    });
    expect(deltas.join("")).toBe("The device is up 3 days.");
    expect(step.state.replies.at(-1)?.metrics).toMatchObject({ tokens_in: 120, tokens_out: 14 });

    // The second call carried the round: the call (content "" not null) and its named result.
    const second = ai.calls[1]!.inputs.messages as Record<string, unknown>[];
    expect(second.map((m) => m.role)).toEqual(["user", "assistant", "tool"]);
    expect(second[2]).toMatchObject({ name: "bash", content: "up 3 days" });
    expect(ai.calls[1]!.inputs.tools).toHaveLength(1);
  });

  it("says why no call can be made when nothing at all is configured", () => {
    const models = new ModelCalls({}, () => {}, noImages);
    expect(models.take("m.llm1", true, initialState("c", "a"))).toBeNull();
    expect(models.unavailableReason()).toContain("no model is configured");
  });
});

describe("@anthropic-ai/sdk in workerd", () => {
  it("streams a Messages API answer through the SDK", async () => {
    const events = [
      [
        "message_start",
        {
          message: {
            id: "msg_1",
            type: "message",
            role: "assistant",
            content: [],
            usage: { input_tokens: 12, output_tokens: 1 },
          },
        },
      ],
      [
        "content_block_start",
        { index: 0, content_block: { type: "tool_use", id: "toolu_1", name: "bash", input: {} } },
      ],
      ["content_block_delta", { index: 0, delta: { type: "input_json_delta", partial_json: '{"command":' } }],
      ["content_block_delta", { index: 0, delta: { type: "input_json_delta", partial_json: '"ls"}' } }],
      ["content_block_stop", { index: 0 }],
      ["message_delta", { delta: { stop_reason: "tool_use" }, usage: { output_tokens: 9 } }],
      ["message_stop", {}],
    ] as const;
    const sse = events
      .map(([event, data]) => `event: ${event}\ndata: ${JSON.stringify({ type: event, ...data })}\n\n`)
      .join("");
    const seen: { url: string; headers: Headers }[] = [];
    const fetchStandIn: typeof fetch = async (input, init) => {
      seen.push({ url: String(input), headers: new Headers(init?.headers) });
      return new Response(sse, { headers: { "content-type": "text/event-stream" } });
    };
    const result = await callLlm(
      {
        provider: "anthropic",
        apiKey: "sk-ant",
        model: "claude-test",
        baseURL: "https://gateway.example/v1/a/g/anthropic",
      },
      { messages: [{ role: "user", content: "list" }] },
      { fetch: fetchStandIn },
    );
    expect(result).toMatchObject({
      ok: true,
      turn: {
        toolCalls: [{ id: "toolu_1", name: "bash", arguments: '{"command":"ls"}' }],
        usage: { prompt_tokens: 12, completion_tokens: 9 },
      },
    });
    expect(seen[0]!.url).toBe("https://gateway.example/v1/a/g/anthropic/v1/messages");
    expect(seen[0]!.headers.get("x-api-key")).toBe("sk-ant");
  });
});
