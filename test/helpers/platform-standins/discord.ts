import { ONE_PIXEL_PNG, type Reply, type StandIn, startRecordingServer } from "./recording-server.js";

/**
 * Discord's REST API (discord.com/developers/docs/reference), under /api/v10: `Authorization: Bot
 * <token>`, messages as JSON or multipart, 204 for typing, and 429 with `retry_after` (seconds, a
 * float) in the JSON body. Attachments are served at /attachments/….
 */
export async function startDiscordStandIn(botToken: string): Promise<StandIn & { apiBaseUrl: string }> {
  let id = 1100000000000000000n;
  const message = (channelId: string, body: unknown) => ({
    id: String(++id),
    channel_id: channelId,
    ...(body as object),
  });
  const standIn = await startRecordingServer((call): Reply => {
    if (call.method === "GET" && call.path.startsWith("/attachments/"))
      return { status: 200, headers: { "content-type": "image/png" }, body: ONE_PIXEL_PNG };
    const webhook = call.path.match(/^\/api\/v10\/webhooks\/(\d+)\/([^/]+)$/);
    if (webhook && call.method === "POST") return { status: 200, body: message("0", call.body) };
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
  return { ...standIn, apiBaseUrl: `${standIn.origin}/api/v10` };
}

/** Discord's rate-limited answer: the precise wait in the body, the header rounded up. */
export const discordRateLimited = (retryAfterSeconds: number): Reply => ({
  status: 429,
  headers: { "retry-after": String(Math.ceil(retryAfterSeconds)), "x-ratelimit-scope": "user" },
  body: { message: "You are being rate limited.", retry_after: retryAfterSeconds, global: false },
});
