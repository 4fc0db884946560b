import type { ChatPlatform, InboundResult } from "../../platform.js";
import { settingsWhenSet } from "../common/settings-when-set.js";
import { whatsappClient } from "./client.js";
import { parseWebhookBody } from "./inbound.js";
import { type WhatsAppSettings, WhatsAppSettingsSchema } from "./settings.js";
import { answerVerifyHandshake, verifyMetaSignature } from "./verify.js";

/**
 * WhatsApp over Meta's official Cloud API: one number, each sender's number one chat. The GET
 * verification handshake and the signed POSTs arrive on the same path.
 */
export const whatsappPlatform: ChatPlatform<WhatsAppSettings> = {
  name: "whatsapp",
  title: "WhatsApp",
  limits: {
    maxMessageLength: 4096,
    minEditIntervalMs: 1000,
    // No edits on WhatsApp: a reply is sent once it is complete.
    canEdit: false,
    // The Cloud API takes images up to 5 MB.
    photoMaxBytes: 5 * 1000 * 1000,
  },
  settingsSchema: WhatsAppSettingsSchema,
  settings: settingsWhenSet(WhatsAppSettingsSchema),
  async inbound(request: Request, settings: WhatsAppSettings): Promise<InboundResult> {
    if (request.method === "GET") return answerVerifyHandshake(new URL(request.url), settings.WHATSAPP_VERIFY_TOKEN);
    const raw = await request.text();
    const verified = await verifyMetaSignature(request.headers, raw, settings.WHATSAPP_APP_SECRET);
    if (!verified.ok) return { ok: false, status: 401, reason: verified.reason };
    return parseWebhookBody(raw, settings.WHATSAPP_PHONE_NUMBER_ID);
  },
  client: whatsappClient,
  registration: (webhookUrl) =>
    `In developers.facebook.com → your app → WhatsApp → Configuration: Callback URL ${webhookUrl}, ` +
    "Verify token $WHATSAPP_VERIFY_TOKEN, then subscribe to the messages field",
};
