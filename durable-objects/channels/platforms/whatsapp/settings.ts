import { z } from "zod";

/** WhatsApp Cloud API settings, as the worker's vars name them. The channel is on when the secrets are set. */
export const WhatsAppSettingsSchema = z.object({
  WHATSAPP_APP_SECRET: z
    .string()
    .min(1)
    .describe("Secret. The Meta app's secret (App settings → Basic): verifies `X-Hub-Signature-256` on every POST."),
  WHATSAPP_VERIFY_TOKEN: z
    .string()
    .min(1)
    .describe("Secret. The verify token you type into the webhook setup; Meta's GET handshake must echo it."),
  WHATSAPP_ACCESS_TOKEN: z.string().min(1).describe("Secret. A system user's access token for the Cloud API."),
  WHATSAPP_PHONE_NUMBER_ID: z
    .string()
    .regex(/^\d{1,30}$/, "the phone number id (digits), not the phone number")
    .describe("The business phone number's id (WhatsApp → API Setup) that sends and receives."),
  WHATSAPP_API_BASE_URL: z
    .url({ protocol: /^https?$/ })
    .default("https://graph.facebook.com")
    .transform((u) => u.replace(/\/+$/, ""))
    .describe("The Graph API base URL, without the version; tests point it at a local stand-in."),
  WHATSAPP_API_VERSION: z
    .string()
    .regex(/^v\d+\.\d+$/, "a Graph API version like v23.0")
    .default("v23.0")
    .describe("The Graph API version in every Cloud API call."),
});

export type WhatsAppSettings = z.output<typeof WhatsAppSettingsSchema>;
