import { deploymentOf } from "../../addresses.js";
import type { DurableObjectBindings } from "../../bindings.js";
import type { McpTokens } from "./oauth-fetch.js";

/** Remote MCP servers' OAuth tokens are the deployment's (deployment/mcp-oauth-store.ts): asked of its object. */
export function deploymentTokens(env: Pick<DurableObjectBindings, "DEPLOYMENT">): McpTokens {
  const deployment = deploymentOf(env);
  return {
    token: (server, refused) => deployment.mcpOAuthToken(server, refused),
    insufficientScope: (server, scope) => deployment.mcpOAuthInsufficientScope(server, scope),
  };
}
