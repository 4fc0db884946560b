import type { WorkerConfig } from "../../durable-objects/front-door/front-door-config.js";
import type { Principal } from "../../runtime/access.js";
import type { Env } from "../env.js";
import { principalForBearer } from "../middleware/credentials.js";
import { authorizationServerFor } from "./authorization-server.js";
import { GrantProps } from "./grants.js";
import { resourceFor } from "./oauth-names.js";

/**
 * The principal an OAuth access token stands for at `/mcp` on this origin, or null: the token must
 * be one this worker issued for this very resource (the library checks its record, expiry and
 * audience), and the key its grant carries must still be in force (grants.ts). So a revoked grant
 * is refused as its key is, within the trusted copy's bound (docs/architecture.md#trusted-copies).
 */
export async function principalForAccessToken(
  env: Env,
  cfg: WorkerConfig,
  origin: string,
  token: string,
): Promise<Principal | null> {
  if (!env.OAUTH_KV) return null;
  const valid = await authorizationServerFor(origin).validateToken(resourceFor(origin), token, env);
  if (!valid) return null;
  const props = GrantProps.safeParse(valid.props);
  return props.success ? principalForBearer(env, cfg, props.data.key) : null;
}
