import { ONE_PIXEL_PNG, type Reply, type StandIn, startRecordingServer } from "./recording-server.js";

/**
 * The WhatsApp Cloud API (developers.facebook.com/docs/whatsapp/cloud-api/reference): `POST
 * /{version}/{phone-number-id}/messages` and `/media` with a bearer token, `GET /{version}/{media-id}`
 * resolving to a URL whose bytes need the same token; a `"status":"read"` body on /messages marks a
 * message read (and shows the typing indicator); errors as Graph's `{"error":{message, code, …}}`.
 */
export async function startWhatsAppStandIn(accessToken: string): Promise<StandIn & { apiBaseUrl: string }> {
  let n = 0;
  const standIn = await startRecordingServer((call, origin): Reply => {
    if (call.headers.authorization !== `Bearer ${accessToken}`)
      return graphError(401, 190, "Invalid OAuth access token - Cannot parse access token");
    if (call.method === "GET" && call.path.startsWith("/media-bytes/"))
      return { status: 200, headers: { "content-type": "image/jpeg" }, body: ONE_PIXEL_PNG };
    const messages = call.path.match(/^\/v\d+\.\d+\/(\d+)\/messages$/);
    if (messages && call.method === "POST") {
      // Marking a received message read, with or without the typing indicator, on the same endpoint
      // (developers.facebook.com/documentation/business-messaging/whatsapp/typing-indicators).
      const status = call.body as { status?: unknown; message_id?: unknown; typing_indicator?: { type?: unknown } };
      if (status.status !== undefined) {
        const good =
          status.status === "read" &&
          typeof status.message_id === "string" &&
          (status.typing_indicator === undefined || status.typing_indicator.type === "text");
        return good ? { status: 200, body: { success: true } } : graphError(400, 100, "Invalid parameter");
      }
      const to = (call.body as { to?: string }).to ?? "";
      return {
        status: 200,
        body: {
          messaging_product: "whatsapp",
          contacts: [{ input: to, wa_id: to }],
          messages: [{ id: `wamid.TEST${++n}` }],
        },
      };
    }
    if (/^\/v\d+\.\d+\/\d+\/media$/.test(call.path) && call.method === "POST")
      return { status: 200, body: { id: `9000${++n}` } };
    const media = call.path.match(/^\/v\d+\.\d+\/(\d+)$/);
    if (media && call.method === "GET")
      return {
        status: 200,
        body: {
          messaging_product: "whatsapp",
          url: `${origin}/media-bytes/${media[1]}`,
          mime_type: "image/jpeg",
          sha256: "SfInY0gUjHrG/Jbm2yd2zAa+5wp3tnSKmr3tUkgdPbU=",
          file_size: ONE_PIXEL_PNG.length,
          id: media[1],
        },
      };
    return graphError(400, 100, "Unsupported request");
  });
  return { ...standIn, apiBaseUrl: standIn.origin };
}

export function graphError(status: number, code: number, message: string): Reply {
  return { status, body: { error: { message, type: "OAuthException", code, fbtrace_id: "AbCdEfGhIjK" } } };
}

/** Cloud API throughput exceeded (error 130429). */
export const whatsappRateLimited = (): Reply => graphError(429, 130429, "(#130429) Rate limit hit");
