import type { ConversationEvent } from "@edgeloop/protocol/events";
import { MAX_FLEET_DEVICES } from "@edgeloop/protocol/http-bodies";
import { Identifier } from "@edgeloop/protocol/ids";
import { z } from "zod";
import type { ApiClient } from "../api-client.js";
import { MessageAccepted } from "../api-schemas.js";
import { type Command, parseInput, positionals, printJson } from "../command.js";
import { eventPrinter } from "../event-printer.js";
import { CliError, EXIT, type ExitCode, usageError } from "../exit-codes.js";
import { CLI } from "../invocation.js";
import { progress } from "../output/progress.js";
import { readSse } from "../sse.js";

const Flags = z.object({
  /** one device, or several comma-separated: a fleet (docs/fleet.md) */
  agent: z
    .string()
    .transform((v) => v.split(",").map((id) => id.trim()))
    .pipe(z.array(Identifier).min(1).max(MAX_FLEET_DEVICES)),
  conversation: Identifier.optional(),
  wait: z.boolean().optional(),
  timeout: z.coerce.number().int().min(1).max(86_400).default(600),
  text: z.string().min(1, "the message text is empty").max(32_000),
});

/**
 * `send "text"`: POST /v1/messages. With --wait it follows the conversation's SSE stream and
 * prints the reply's events as they happen, until this message's `conversation_end`.
 */
export const sendCommand: Command = {
  names: ["send"],
  synopsis: 'send "text" [--agent id[,id…]] [--conversation id] [--wait [--timeout s]] [--json]',
  summary: "send a message; --wait streams the tool calls and the reply",
  options: {
    agent: { type: "string" },
    conversation: { type: "string" },
    wait: { type: "boolean" },
    timeout: { type: "string" },
  },
  async run({ client, settings, json, values, positionals: args }) {
    const [text] = positionals(args, ["text"], this.synopsis);
    const agent = (values.agent as string | undefined) ?? settings.agent;
    if (!agent) throw usageError("which device? pass --agent, set EDGELOOP_AGENT, or agent in cli.toml");
    const flags = parseInput(Flags, { ...values, agent, text }, this.synopsis);
    const accepted = await client.json(MessageAccepted, "/v1/messages", {
      method: "POST",
      auth: "api",
      body: {
        // Several devices: one conversation over all of them (a fleet).
        ...(flags.agent.length === 1 ? { agent_id: flags.agent[0] } : { agent_ids: flags.agent }),
        text: flags.text,
        ...(flags.conversation ? { conversation_id: flags.conversation } : {}),
      },
    });
    if (!flags.wait) {
      if (json) printJson(accepted);
      else
        console.log(
          `Sent ${accepted.message_id} in ${accepted.conversation_id}. Follow it with --wait, or: ${CLI} conversations ${accepted.conversation_id}`,
        );
      return EXIT.ok;
    }
    if (!json)
      console.log(
        `${accepted.conversation_id} · ${accepted.message_id} · agent ${flags.agent.length > 1 ? flags.agent.join(", ") : (accepted.agent_id ?? flags.agent[0])}`,
      );
    return follow(client, accepted.conversation_id, accepted.message_id, flags.timeout, json);
  },
};

/** Follow the stream until this message ends; reconnects resume from the last event id. */
async function follow(
  client: ApiClient,
  conversationId: string,
  messageId: string,
  timeoutS: number,
  json: boolean,
): Promise<ExitCode> {
  const out = progress(!json && Boolean(process.stdout.isTTY && process.stderr.isTTY));
  const print = eventPrinter(out, conversationId);
  const deadline = AbortSignal.timeout(timeoutS * 1000);
  let lastId: string | null = null;
  let mine = false;
  out.set("waiting for the conversation to start…");
  try {
    for (let attempt = 0; !deadline.aborted; attempt++) {
      const headers: Record<string, string> = { accept: "text/event-stream" };
      if (lastId) headers["last-event-id"] = lastId;
      let res: Response;
      try {
        res = await client.fetch(`/v1/conversations/${encodeURIComponent(conversationId)}/events`, {
          auth: "api",
          headers,
          signal: deadline,
        });
      } catch (e) {
        if (deadline.aborted) break;
        if (attempt >= 5) throw e;
        await new Promise((r) => setTimeout(r, 500 * (attempt + 1)));
        continue;
      }
      if (!res.ok || !res.body) throw client.problem(res.status, await res.json().catch(() => undefined));
      try {
        for await (const sse of readSse(res.body)) {
          lastId = sse.id ?? lastId;
          const event = JSON.parse(sse.data) as ConversationEvent;
          // The stream replays the whole conversation: skip what came before this message.
          if (event.type === "message_start") mine = event.message_id === messageId;
          if (!mine) continue;
          if (json) process.stdout.write(`${JSON.stringify(event)}\n`);
          else print(event);
          if (event.type === "conversation_end" && event.message_id === messageId) {
            return event.status === "completed" ? EXIT.ok : EXIT.failure;
          }
        }
      } catch (e) {
        if (deadline.aborted) break;
        if (!(e instanceof TypeError) && (e as Error).name !== "AbortError") throw e;
        // The stream broke (network, deploy): reconnect from the last event.
      }
    }
    throw new CliError(
      `no reply within ${timeoutS} s; the conversation goes on — follow it with: ${CLI} conversations ${conversationId}`,
      EXIT.failure,
    );
  } finally {
    out.stop();
  }
}
