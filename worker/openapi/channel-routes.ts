import {
  ApprovePairingRequest,
  CHANNEL_PLATFORMS,
  CHANNEL_WEBHOOK_MAX_BYTES,
  ChannelGrantRequest,
  RegisterWebhookRequest,
} from "@edgeloop/protocol/channels";
import { z } from "zod";
import { ADMIN, json, PUBLIC, problem, type Route, text } from "./route.js";

const NOT_SERVED = {
  404: problem("no such platform, or its settings are not set"),
  500: problem("the platform's settings are set but one is bad (`GET /v1/channels` names it)"),
};

const WEBHOOK_ANSWERS = {
  200: json(
    "accepted: each event handed to its chat thread once (`taken`), repeats of events seen before counted apart " +
      "(Telegram, WhatsApp, Slack's events and presses). Where the platform expects an answer it gets that " +
      "instead: Discord the interaction response (`{type: 1}` PONG, `{type: 4, data}` for a command, `{type: 6}` " +
      "for a press), Slack `{challenge}` for url_verification and an empty body for a slash command",
    z.looseObject({ ok: z.boolean(), taken: z.number().int(), repeated: z.number().int() }),
  ),
  400: problem("verified, but not a body the platform sends (not JSON, not its payload shape)"),
  401: problem("not signed the platform's way (Telegram: a wrong or missing X-Telegram-Bot-Api-Secret-Token)"),
  413: problem(
    `a body over 1 MB (${CHANNEL_WEBHOOK_MAX_BYTES} bytes, by its Content-Length): no platform sends one that large`,
  ),
  ...NOT_SERVED,
};

/** Chat channels (docs/channels.md): the platforms' webhooks and the admin's view of chat access. */
export const CHANNEL_ROUTES: Route[] = [
  {
    method: "POST",
    path: "/v1/channels/:platform",
    summary: `A chat platform's webhook (${CHANNEL_PLATFORMS.join(", ")}), verified the platform's own way`,
    tag: "channels",
    auth: PUBLIC,
    responses: WEBHOOK_ANSWERS,
  },
  {
    method: "GET",
    path: "/v1/channels/:platform",
    summary:
      "A platform's verification handshake on the webhook URL: WhatsApp's `hub.mode=subscribe`, " +
      "`hub.verify_token`, `hub.challenge`",
    tag: "channels",
    auth: PUBLIC,
    responses: {
      200: text("`hub.challenge` echoed, when `hub.verify_token` is WHATSAPP_VERIFY_TOKEN", "text/plain"),
      400: problem("not a verification request (no `hub.mode=subscribe` or no `hub.challenge`)"),
      401: problem("a platform without a GET handshake: it takes only its signed POSTs"),
      403: problem("a wrong `hub.verify_token`"),
      ...NOT_SERVED,
    },
  },
  {
    method: "GET",
    path: "/v1/channels",
    summary: "Channels: which platforms are configured, pairing codes waiting, grants, recent refusals",
    tag: "channels",
    auth: ADMIN,
    responses: { 200: json("the channels' state") },
  },
  {
    method: "POST",
    path: "/v1/channels/pairings/:code/approve",
    summary: "Approve a chat user's pairing code: the user gets these devices, as a scoped key would",
    tag: "channels",
    auth: ADMIN,
    body: ApprovePairingRequest,
    responses: { 200: json("the pairing and the grant made"), 404: problem("no such code waiting") },
  },
  {
    method: "POST",
    path: "/v1/channels/grants",
    summary: "Bind a chat user (`user:<id>`) or a whole group chat (`chat:<id>`) to devices",
    tag: "channels",
    auth: ADMIN,
    body: ChannelGrantRequest,
    responses: { 201: json("the grant") },
  },
  {
    method: "DELETE",
    path: "/v1/channels/grants/:platform/:subject",
    summary: "Remove a grant: that user or chat reaches no device any more",
    tag: "channels",
    auth: ADMIN,
    responses: { 200: json("removed"), 404: problem("no such grant") },
  },
  {
    method: "POST",
    path: "/v1/channels/:platform/register",
    summary:
      "Point the platform at this worker's webhook (Telegram's setWebhook with the secret token), or with `print` " +
      "say how to by hand",
    tag: "channels",
    auth: ADMIN,
    body: RegisterWebhookRequest,
    responses: {
      200: json(
        "registered (`detail`), or with `print` the steps (`steps`: the platform's call against its configured API " +
          "base URL, or where in its console), secrets as placeholders",
        z.looseObject({
          platform: z.string(),
          url: z.string(),
          detail: z.string().optional(),
          steps: z.string().optional(),
        }),
      ),
      400: problem("not an https URL (a platform calls only https)"),
      404: problem("no such platform, or its settings are not set"),
      409: problem("this platform's webhook is set in its console: `detail` says where"),
      502: problem("the platform refused"),
    },
  },
];
