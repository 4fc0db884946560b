import { z } from "zod";
import type { InboundEvent, InboundResult } from "../../platform.js";

/**
 * A Cloud API webhook body (developers.facebook.com/docs/whatsapp/cloud-api/webhooks/components),
 * validated: text, image and interactive (button or list reply) messages become events; delivery
 * statuses and other fields are acknowledged and dropped. Fields edgeloop does not read pass unchecked.
 */

const Message = z.object({
  from: z.string(),
  id: z.string().min(1),
  type: z.string(),
  text: z.object({ body: z.string() }).optional(),
  image: z.object({ id: z.string(), mime_type: z.string().optional(), caption: z.string().optional() }).optional(),
  interactive: z
    .object({
      type: z.string(),
      button_reply: z.object({ id: z.string(), title: z.string() }).optional(),
      list_reply: z.object({ id: z.string(), title: z.string() }).optional(),
    })
    .optional(),
  context: z.object({ id: z.string() }).optional(),
});

const Value = z.object({
  metadata: z.object({ phone_number_id: z.string() }),
  contacts: z.array(z.object({ wa_id: z.string(), profile: z.object({ name: z.string() }).optional() })).default([]),
  messages: z.array(Message).default([]),
});

const Body = z.object({
  object: z.literal("whatsapp_business_account"),
  entry: z.array(z.object({ changes: z.array(z.object({ field: z.string(), value: z.unknown() })) })),
});

const bad = (reason: string): InboundResult => ({ ok: false, status: 400, reason });

function toEvent(m: z.output<typeof Message>, name: string): InboundEvent | null {
  const chat = { chatId: m.from };
  const user = { id: m.from, name };
  const reply = m.interactive?.button_reply ?? m.interactive?.list_reply;
  if (m.type === "interactive" && reply && m.context)
    return { kind: "button", eventId: m.id, chat, user, data: reply.id, messageId: m.context.id };
  const base = { kind: "message" as const, eventId: m.id, chat, user, chatType: "direct" as const };
  if (m.type === "text" && m.text) return { ...base, text: m.text.body, images: [] };
  if (m.type === "image" && m.image)
    return {
      ...base,
      text: m.image.caption ?? "",
      images: [{ ref: m.image.id, ...(m.image.mime_type ? { mediaType: m.image.mime_type } : {}) }],
    };
  return null; // audio, stickers, locations …: not something the model can take
}

/** Parse a verified POST body; only messages to `phoneNumberId` count (one app may serve several numbers). */
export function parseWebhookBody(raw: string, phoneNumberId: string): InboundResult {
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    return bad("the body is not JSON");
  }
  const body = Body.safeParse(json);
  if (!body.success) return bad(`not a WhatsApp Business webhook: ${body.error.issues[0]?.message}`);
  const events: InboundEvent[] = [];
  for (const change of body.data.entry.flatMap((e) => e.changes)) {
    if (change.field !== "messages") continue;
    const value = Value.safeParse(change.value);
    if (!value.success) return bad(`messages change: ${value.error.issues[0]?.message}`);
    if (value.data.metadata.phone_number_id !== phoneNumberId) continue;
    for (const m of value.data.messages) {
      const contact = value.data.contacts.find((c) => c.wa_id === m.from);
      const event = toEvent(m, contact?.profile?.name ?? m.from);
      if (event) events.push(event);
    }
  }
  return { ok: true, events };
}
