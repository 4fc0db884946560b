import { z } from "zod";
import { log } from "../../../../runtime/log.js";
import type { NodeCredentials } from "./node-credentials.js";

/**
 * The hub's side of onboarding a node (docs/openclaw-nodes.md#onboarding), asked by the worker's
 * /v1/openclaw routes: mint a setup secret, say whether a join code is live. (Device keys waiting
 * for approval are pairing requests: durable-objects/pairing/.) The worker has checked who asks
 * (an admin, or the holder of a join code) and turns the answers into the lines an operator runs.
 */

export const SETUP_TTL_MS = { default: 15 * 60_000, max: 7 * 24 * 60 * 60_000 };

export const SetupBody = z.object({
  ttl_ms: z.number().int().min(60_000).max(SETUP_TTL_MS.max).default(SETUP_TTL_MS.default),
});
export const JoinBody = z.object({ code: z.string().regex(/^[A-Za-z0-9_-]{22}$/) });

const json = (body: unknown, status = 200) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });

async function body<T>(request: Request, schema: z.ZodType<T>): Promise<T | null> {
  const parsed = schema.safeParse(await request.json().catch(() => null));
  return parsed.success ? parsed.data : null;
}

export async function onboardingRequest(
  op: string | null,
  request: Request,
  credentials: NodeCredentials,
  now: number,
): Promise<Response> {
  switch (op) {
    case "setup": {
      const b = await body(request, SetupBody);
      if (!b) return json({ error: "invalid setup body" }, 400);
      const minted = await credentials.mintSetup(now, b.ttl_ms);
      log("info", "openclaw setup code minted", { expires_at: minted.expires_at });
      return json(minted, 201);
    }
    case "join": {
      const b = await body(request, JoinBody);
      const expires_at = b ? await credentials.setupExpiry(b.code, now) : null;
      return expires_at === null ? json({ found: false }, 404) : json({ found: true, expires_at });
    }
    default:
      return json({ error: `unknown openclaw operation '${op}'` }, 400);
  }
}
