import { KEY_PREFIX } from "@edgeloop/protocol/api-keys";
import { verifiedKey } from "../../durable-objects/deployment/in-force.js";
import type { WorkerConfig } from "../../durable-objects/front-door/front-door-config.js";
import { type Principal, scopedPrincipal, unscoped } from "../../runtime/access.js";
import { sha256Hex } from "../../runtime/digest.js";
import type { Env } from "../env.js";
import { safeEqual } from "./safe-equal.js";

/**
 * The principal a bearer token stands for (runtime/access.ts has the rules), or null. The
 * configured tokens are both compared every time (constant time, so the time taken does not say
 * which matched); a token with the key prefix is then looked up by its SHA-256, which is all the
 * deployment object stores, through this isolate's trusted copy (docs/architecture.md#trusted-copies).
 * A revoked key is null.
 */
export async function principalForBearer(env: Env, cfg: WorkerConfig, token: string): Promise<Principal | null> {
  const [api, admin] = await Promise.all([
    cfg.API_TOKEN ? safeEqual(token, cfg.API_TOKEN) : false,
    cfg.ADMIN_TOKEN ? safeEqual(token, cfg.ADMIN_TOKEN) : false,
  ]);
  if (admin) return unscoped("admin", true);
  if (api) return unscoped("api");
  if (!token.startsWith(KEY_PREFIX)) return null;
  const key = await verifiedKey(env, await sha256Hex(token));
  return key ? scopedPrincipal(`key:${key.key_id}`, key, cfg.POOLS) : null;
}
