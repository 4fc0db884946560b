import { ONE_PIXEL_PNG, type Reply, type StandIn, startRecordingServer } from "./recording-server.js";

/**
 * Slack's Web API (docs.slack.dev/reference/methods): `POST /api/<method>`, a bearer bot token,
 * answers `{"ok":true,…}` or `{"ok":false,"error":…}` with HTTP 200, and 429 with `Retry-After`
 * (seconds) when rate limited. Files are served at /files/… with the same token.
 */
export async function startSlackStandIn(botToken: string): Promise<StandIn & { apiBaseUrl: string }> {
  let ts = 1700000000;
  const nextTs = () => `${++ts}.000100`;
  const standIn = await startRecordingServer((call, origin): Reply => {
    if (call.path.startsWith("/upload/")) return { status: 200, body: new TextEncoder().encode("OK") };
    if (call.headers.authorization !== `Bearer ${botToken}`)
      return { status: 200, body: { ok: false, error: "invalid_auth" } };
    if (call.method === "GET" && call.path.startsWith("/files/"))
      return { status: 200, headers: { "content-type": "image/png" }, body: ONE_PIXEL_PNG };
    const body = (call.body ?? {}) as Record<string, unknown>;
    switch (call.path) {
      case "/api/chat.postMessage":
        return { status: 200, body: { ok: true, channel: body.channel, ts: nextTs(), message: { text: body.text } } };
      case "/api/chat.update":
        return { status: 200, body: { ok: true, channel: body.channel, ts: body.ts, text: body.text } };
      case "/api/chat.postEphemeral":
        return { status: 200, body: { ok: true, message_ts: nextTs() } };
      case "/api/assistant.threads.setStatus":
        return { status: 200, body: { ok: true } };
      case "/api/files.getUploadURLExternal":
        return { status: 200, body: { ok: true, upload_url: `${origin}/upload/F0TEST`, file_id: "F0TEST" } };
      case "/api/files.completeUploadExternal":
        return { status: 200, body: { ok: true, files: [{ id: "F0TEST", title: "image" }] } };
      default:
        return { status: 200, body: { ok: false, error: "unknown_method" } };
    }
  });
  return { ...standIn, apiBaseUrl: `${standIn.origin}/api` };
}

/** Slack's rate-limited answer. */
export const slackRateLimited = (retryAfterSeconds: number): Reply => ({
  status: 429,
  headers: { "retry-after": String(retryAfterSeconds) },
  body: { ok: false, error: "ratelimited" },
});
