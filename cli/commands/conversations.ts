import { Identifier } from "@edgeloop/protocol/ids";
import { z } from "zod";
import type { ApiClient } from "../api-client.js";
import { ConversationList, ConversationView } from "../api-schemas.js";
import { type Command, parseInput, positionals, printJson } from "../command.js";
import { EXIT, usageError } from "../exit-codes.js";
import { ago, oneLine } from "../output/format.js";
import { renderTable } from "../output/table.js";
import { imageLine, saveImages } from "./conversation-images.js";

const Flags = z.object({
  agent: Identifier.optional(),
  status: z.enum(["running", "completed", "failed", "cancelled"]).optional(),
  limit: z.coerce.number().int().min(1).max(1000).default(20),
  images: z.string().min(1).optional(),
});

/**
 * `conversations` lists the newest; `conversations <id>` shows one: its messages and pending calls,
 * and with `--images <dir>` saves its images there.
 */
export const conversationsCommand: Command = {
  names: ["conversations"],
  synopsis:
    "conversations [<conversation_id> [--images dir]] [--agent id] [--status running|completed|failed|cancelled] [--limit n] [--json]",
  summary: "the newest conversations, or one conversation's messages",
  options: {
    agent: { type: "string" },
    status: { type: "string" },
    limit: { type: "string" },
    images: { type: "string" },
  },
  async run({ client, json, values, positionals: args }) {
    const [id] = positionals(args, ["conversation_id"], this.synopsis, 1);
    const flags = parseInput(Flags, values, this.synopsis);
    if (id) return showOne(client, id, json, flags.images);
    if (flags.images) throw usageError("--images saves one conversation's images: give its id");
    const q = new URLSearchParams({ limit: String(flags.limit) });
    if (flags.agent) q.set("agent_id", flags.agent);
    if (flags.status) q.set("status", flags.status);
    const { conversations } = await client.json(ConversationList, `/v1/conversations?${q}`, { auth: "api" });
    if (json) {
      printJson({ conversations });
      return EXIT.ok;
    }
    if (conversations.length === 0) {
      console.log("No conversations yet.");
      return EXIT.ok;
    }
    console.log(
      renderTable(
        [
          { header: "conversation", value: (c) => c.conversation_id, min: 12 },
          { header: "agent", value: (c) => c.agent_id },
          { header: "status", value: (c) => c.status },
          { header: "updated", value: (c) => ago(c.updated_at) },
          { header: "last text", value: (c) => oneLine(c.last_text ?? ""), flex: true },
        ],
        conversations,
      ),
    );
    return EXIT.ok;
  },
};

async function showOne(client: ApiClient, id: string, json: boolean, imagesDir: string | undefined) {
  if (!Identifier.safeParse(id).success)
    throw usageError(`'${id}' is not a conversation id (letters, digits, '.', '_', ':' and '-')`);
  const view = await client.json(ConversationView, `/v1/conversations/${encodeURIComponent(id)}`, { auth: "api" });
  const refs = view.messages.flatMap((m) => m.images ?? []);
  const saved = imagesDir ? await saveImages(client, refs, imagesDir) : new Map<string, string>();
  if (json) {
    printJson(view);
    return EXIT.ok;
  }
  console.log(`${view.conversation_id} · agent ${view.agent_id} · ${view.status}`);
  // The view carries the latest page of a long history (protocol/history-page.ts).
  if (view.messages_from) console.log(`(the latest ${view.messages.length} of ${view.messages_total} messages)`);
  for (const m of view.messages) {
    if (m.role === "assistant" && m.tool_calls?.length) {
      for (const call of m.tool_calls)
        console.log(`  → ${call.function.name} ${oneLine(call.function.arguments, 160)}   [${call.id}]`);
      if (typeof m.content === "string" && m.content) console.log(`assistant: ${m.content}`);
    } else if (m.role === "tool") {
      console.log(`  ← ${oneLine(m.content, 160)}`);
    } else if (m.role !== "system") {
      console.log(`${m.role}: ${typeof m.content === "string" ? m.content : oneLine(m.content)}`);
    }
    for (const ref of m.images ?? []) console.log(`    ${imageLine(ref, saved)}`);
  }
  if (refs.length > 0 && !imagesDir) console.log(`(${refs.length} image(s): --images <dir> saves them)`);
  for (const p of view.pending_tool_calls)
    console.log(`pending: ${p.name} ${p.state} [${p.id}] ${oneLine(p.args, 120)}`);
  return EXIT.ok;
}
