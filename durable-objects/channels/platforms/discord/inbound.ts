import { z } from "zod";
import type { InboundImage, InboundResult } from "../../platform.js";

/**
 * Discord interactions (discord.com/developers/docs/interactions/receiving-and-responding),
 * validated: PING (1), a slash command (2) and a button press (3). Fields edgeloop does not read
 * are let through unchecked.
 */

const InteractionType = { PING: 1, APPLICATION_COMMAND: 2, MESSAGE_COMPONENT: 3 } as const;

/** Interaction callback types: PONG, a message now, and "deferred update" for a component press. */
export const Callback = { PONG: 1, CHANNEL_MESSAGE_WITH_SOURCE: 4, DEFERRED_UPDATE_MESSAGE: 6 } as const;

const DiscordUser = z.object({ id: z.string(), username: z.string(), global_name: z.string().nullish() });

type CommandOption = { name: string; type: number; value?: unknown; options?: CommandOption[] };
const CommandOption: z.ZodType<CommandOption> = z.object({
  name: z.string(),
  type: z.number(),
  value: z.unknown().optional(),
  get options() {
    return z.array(CommandOption).optional();
  },
});

const Interaction = z.object({
  id: z.string().min(1),
  type: z.number(),
  token: z.string().optional(),
  channel_id: z.string().optional(),
  guild_id: z.string().optional(),
  member: z.object({ user: DiscordUser }).optional(),
  user: DiscordUser.optional(),
  message: z.object({ id: z.string() }).optional(),
  data: z
    .object({
      name: z.string().optional(),
      custom_id: z.string().optional(),
      options: z.array(CommandOption).optional(),
      resolved: z
        .object({
          attachments: z
            .record(z.string(), z.object({ url: z.string(), content_type: z.string().optional() }))
            .optional(),
        })
        .optional(),
    })
    .optional(),
});

/** Option type ATTACHMENT: its value is the id of an entry in `resolved.attachments`. */
const ATTACHMENT_OPTION = 11;

const bad = (reason: string): InboundResult => ({ ok: false, status: 400, reason });

/**
 * `/ask text:…` asks with its text; any other command is passed as written (`/new`,
 * `/device name:pi-2` → `/device pi-2`), so the channel core reads every platform's commands alike.
 */
function commandText(name: string, options: CommandOption[]): string {
  const values = options
    .filter((o) => o.type !== ATTACHMENT_OPTION && o.value !== undefined)
    .map((o) => String(o.value));
  return name === "ask" ? values.join(" ") : [`/${name}`, ...values].join(" ");
}

/** Parse a verified interaction body. */
export function parseInteraction(raw: string): InboundResult {
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    return bad("the body is not JSON");
  }
  const parsed = Interaction.safeParse(json);
  if (!parsed.success) return bad(`not a Discord interaction: ${parsed.error.issues[0]?.message}`);
  const i = parsed.data;
  if (i.type === InteractionType.PING)
    return { ok: true, events: [], immediate: { status: 200, body: { type: Callback.PONG } } };
  const who = i.member?.user ?? i.user;
  if (!who || !i.channel_id || !i.data) return bad("an interaction without a user, a channel or data");
  const user = { id: who.id, name: who.global_name ?? who.username };
  const chat = { chatId: i.channel_id };

  if (i.type === InteractionType.APPLICATION_COMMAND && i.data.name) {
    const options = i.data.options ?? [];
    const text = commandText(i.data.name, options);
    const attachments = i.data.resolved?.attachments ?? {};
    const images: InboundImage[] = options
      .filter((o) => o.type === ATTACHMENT_OPTION)
      .map((o) => attachments[String(o.value)])
      .filter((a) => a?.content_type?.startsWith("image/"))
      .map((a) => ({ ref: a!.url, mediaType: a!.content_type }));
    return {
      ok: true,
      events: [
        {
          kind: "message",
          eventId: i.id,
          chat,
          user,
          chatType: i.guild_id ? "group" : "direct",
          text,
          images,
          ...(i.token ? { ackToken: i.token } : {}),
        },
      ],
      // Answered at once with the request itself (Discord shows no text for a slash command), so the
      // interaction is complete within its 3 s; the reply then goes out as the bot's own channel
      // message, which, unlike an interaction's, can still be edited after the token's 15 minutes.
      immediate: {
        status: 200,
        body: {
          type: Callback.CHANNEL_MESSAGE_WITH_SOURCE,
          data: { content: `> ${text.slice(0, 1900)}`, allowed_mentions: { parse: [] } },
        },
      },
    };
  }
  if (i.type === InteractionType.MESSAGE_COMPONENT && i.data.custom_id && i.message) {
    return {
      ok: true,
      events: [
        {
          kind: "button",
          eventId: i.id,
          chat,
          user,
          data: i.data.custom_id,
          messageId: i.message.id,
          ...(i.token ? { ackToken: i.token } : {}),
        },
      ],
      // The card is edited in place by the channel core (REST), so the press only needs acknowledging.
      immediate: { status: 200, body: { type: Callback.DEFERRED_UPDATE_MESSAGE } },
    };
  }
  return bad(`interaction type ${i.type} is not one edgeloop answers`);
}
