import { MessageAccepted } from "@edgeloop/protocol";
import { z } from "zod";
import { json, PUBLIC, problem, type Route } from "./route.js";

/** Named hooks (worker/routes/hooks.ts): each is verified by its sender's own signature, not a token. */
export const HOOK_ROUTES: Route[] = [
  {
    method: "POST",
    path: "/v1/hooks/:name",
    summary:
      "Another service's webhook (GitHub, Standard Webhooks, Grafana, a shared-secret header) as a message to the " +
      "hook's device or pool, through its template (HOOKS); verified by the sender's signature, deduplicated by " +
      "its delivery id",
    tag: "messages",
    auth: PUBLIC,
    responses: {
      200: json("ignored: GitHub's `ping`, or an event the hook does not take", z.object({ ignored: z.string() })),
      202: json("accepted (a redelivery: the first answer, with `Idempotent-Replayed: true`)", MessageAccepted),
      401: problem("the signature (or secret header) is missing or wrong; counted in `GET /v1/limits`"),
      404: problem("no hook by that name"),
    },
  },
];
