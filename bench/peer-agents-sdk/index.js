// Plain JS on purpose, like bench/floor-worker: the repo's Node tsconfig covers bench/, and this file
// runs in workerd.
//
// The peer of the benchmark's side-by-side scenario: an `AIChatAgent` written the way the Agents
// SDK's docs write one (streamText over the conversation, server-side tools with `execute`,
// `stopWhen` for the tool loop, an OpenAI-compatible provider pointed at the same scripted model the
// product's worker uses). Its tools run inside the Durable Object, like edgeloop's built-ins:
//   echo       returns its text (edgeloop's built-in `echo`)
//   slow_hook  POSTs {tool, arguments, tool_call_id} to HOOK_URL and returns the answer (edgeloop's
//              webhook tool with the same body), so a receiver outside can count how often it ran
//
// Routes (the benchmark's driver; a chat app would use the SDK's WebSocket client instead):
//   POST /chat?name=N  {text}  → saveMessages([user text]) and answer when the turn has settled
//   GET  /messages?name=N      → the persisted UI messages
//   GET  /healthz
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { AIChatAgent } from "@cloudflare/ai-chat";
import { getAgentByName } from "agents";
import { convertToModelMessages, stepCountIs, streamText, tool } from "ai";
import { z } from "zod";
import { meteredClass } from "../lib/cost-meter.js";

// Enough steps for the longest scripted message (the benchmark sends at most 100 tool rounds).
const MAX_STEPS = 101;

class PeerChatAgent extends AIChatAgent {
  async onChatMessage() {
    const provider = createOpenAICompatible({
      name: "scripted",
      baseURL: this.env.OPENAI_BASE_URL,
      apiKey: this.env.OPENAI_API_KEY,
      includeUsage: true,
    });
    const hookUrl = this.env.HOOK_URL;
    const result = streamText({
      model: provider.chatModel(this.env.LLM_MODEL ?? "scripted"),
      messages: await convertToModelMessages(this.messages),
      tools: {
        echo: tool({
          description: "Returns the given text unchanged (for testing).",
          inputSchema: z.object({ text: z.string().describe("Text to echo back") }),
          execute: async ({ text }) => text,
        }),
        slow_hook: tool({
          description: "Calls the benchmark's hook and returns its answer.",
          inputSchema: z.object({}),
          execute: async (args, { toolCallId }) => {
            const res = await fetch(hookUrl, {
              method: "POST",
              headers: { "content-type": "application/json" },
              body: JSON.stringify({ tool: "slow_hook", arguments: args, tool_call_id: toolCallId }),
            });
            return await res.text();
          },
        }),
      },
      stopWhen: stepCountIs(MAX_STEPS),
    });
    return result.toUIMessageStreamResponse();
  }

  /** The driver's entry: one user message, answered when the turn (all its steps) has settled. */
  async chat(text) {
    await this.saveMessages((messages) => [
      ...messages,
      { id: crypto.randomUUID(), role: "user", parts: [{ type: "text", text }] },
    ]);
    await this.waitUntilStable({ timeout: 120_000 });
    return this.messages.length;
  }

  async listMessages() {
    return this.messages;
  }
}

// With COST_METER=on the object counts its rows and requests (bench/lib/cost-meter.ts), exactly as
// the product's objects are counted in the benchmark's cost scenario.
export const PeerChat = meteredClass(PeerChatAgent, "PeerChat");

export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    if (url.pathname === "/healthz") return new Response("ok");
    const name = url.searchParams.get("name") ?? "peer";
    if (url.pathname === "/chat" && request.method === "POST") {
      const { text } = await request.json();
      const agent = await getAgentByName(env.PEER_CHAT, name);
      return Response.json({ messages: await agent.chat(text) });
    }
    if (url.pathname === "/messages") {
      const agent = await getAgentByName(env.PEER_CHAT, name);
      return Response.json(await agent.listMessages());
    }
    return new Response("not found", { status: 404 });
  },
};
