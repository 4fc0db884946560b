import { IDEMPOTENT_REPLAYED_HEADER } from "@edgeloop/protocol";
import type { MessageOutcome } from "../../durable-objects/front-door/accept-message.js";
import { problemResponse } from "../../runtime/problem.js";

/**
 * The HTTP answer to a message the front door took or refused (`POST /v1/messages`, named hooks):
 * 202 with the ids, 200 with the reply after `?wait=N`, or problem+json; a repeat of an
 * idempotency key says so in a header.
 */
export function messageResponse(out: MessageOutcome): Response {
  if (out.kind === "refused") {
    const { status, title, detail, extra, headers } = out.refusal;
    return problemResponse(status, title, detail, extra ?? {}, headers ?? {});
  }
  const replayed: Record<string, string> = out.replayed ? { [IDEMPOTENT_REPLAYED_HEADER]: "true" } : {};
  const [status, body] = out.kind === "accepted" ? [202, out.accepted] : [200, out.reply];
  return Response.json(body, { status, headers: replayed });
}
