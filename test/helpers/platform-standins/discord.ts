import { ONE_PIXEL_PNG, type Reply, type StandIn, startRecordingServer } from "./recording-server.js";

export type DiscordStandIn = StandIn & {
  apiBaseUrl: string;
  /**
   * Deliver an interaction to the application's endpoint as Discord does, and wait for its response;
   * only once a response with a callback type has arrived (and RESPONSE_SEEN_AFTER_MS later) does
   * Discord take follow-ups on the interaction's token.
   */
  interact(
    endpoint: string,
    body: string,
    headers: Record<string, string>,
  ): Promise<{ status: number; body: Record<string, unknown> }>;
  /** As if Discord had seen the interaction with this token answered (for a client tested alone). */
  answered(token: string): void;
};

/** How long after the application answered an interaction Discord takes follow-ups on it. */
const RESPONSE_SEEN_AFTER_MS = 250;

/**
 * Discord's REST API (discord.com/developers/docs/reference), under /api/v10: `Authorization: Bot
 * <token>`, messages as JSON or multipart, 204 for typing, and 429 with `retry_after` (seconds, a
 * float) in the JSON body. Attachments are served at /attachments/…. A follow-up on an interaction
 * (`POST /webhooks/{application id}/{token}`) is refused with 404 and code 10015 ("Unknown
 * interaction") until the interaction's own response has reached Discord.
 */
export async function startDiscordStandIn(botToken: string): Promise<DiscordStandIn> {
  let id = 1100000000000000000n;
  const answeredTokens = new Set<string>();
  const message = (channelId: string, body: unknown) => ({
    id: String(++id),
    channel_id: channelId,
    ...(body as object),
  });
  const standIn = await startRecordingServer((call): Reply => {
    if (call.method === "GET" && call.path.startsWith("/attachments/"))
      return { status: 200, headers: { "content-type": "image/png" }, body: ONE_PIXEL_PNG };
    const webhook = call.path.match(/^\/api\/v10\/webhooks\/(\d+)\/([^/]+)$/);
    if (webhook && call.method === "POST") {
      if (!answeredTokens.has(webhook[2]!))
        return { status: 404, body: { message: "Unknown interaction", code: 10015 } };
      return { status: 200, body: message("0", call.body) };
    }
    if (call.headers.authorization !== `Bot ${botToken}`)
      return { status: 401, body: { message: "401: Unauthorized", code: 0 } };
    const typing = call.path.match(/^\/api\/v10\/channels\/(\d+)\/typing$/);
    if (typing && call.method === "POST") return { status: 204 };
    const post = call.path.match(/^\/api\/v10\/channels\/(\d+)\/messages$/);
    if (post && call.method === "POST") return { status: 200, body: message(post[1]!, call.body) };
    const edit = call.path.match(/^\/api\/v10\/channels\/(\d+)\/messages\/(\d+)$/);
    if (edit && call.method === "PATCH") return { status: 200, body: { ...message(edit[1]!, call.body), id: edit[2] } };
    return { status: 404, body: { message: "404: Not Found", code: 0 } };
  });
  return {
    ...standIn,
    apiBaseUrl: `${standIn.origin}/api/v10`,
    async interact(endpoint, body, headers) {
      const res = await fetch(endpoint, {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body,
      });
      const answer = (await res.json()) as Record<string, unknown>;
      const token = (JSON.parse(body) as { token?: unknown }).token;
      // The response reaches Discord's records a moment after it left the application (the way back
      // over the internet): a follow-up sent meanwhile is refused, as Discord refuses it.
      if (res.status === 200 && typeof answer.type === "number" && typeof token === "string")
        setTimeout(() => answeredTokens.add(token), RESPONSE_SEEN_AFTER_MS);
      return { status: res.status, body: answer };
    },
    answered: (token) => void answeredTokens.add(token),
  };
}

/** Discord's rate-limited answer: the precise wait in the body, the header rounded up. */
export const discordRateLimited = (retryAfterSeconds: number): Reply => ({
  status: 429,
  headers: { "retry-after": String(Math.ceil(retryAfterSeconds)), "x-ratelimit-scope": "user" },
  body: { message: "You are being rate limited.", retry_after: retryAfterSeconds, global: false },
});
