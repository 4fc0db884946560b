import type { OAuthClientProvider, OAuthDiscoveryState } from "@modelcontextprotocol/sdk/client/auth.js";
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from "@modelcontextprotocol/sdk/shared/auth.js";
import type { McpOAuthConfig } from "../conversation/mcp/mcp-servers-config.js";

/**
 * What the MCP SDK's OAuth client (`auth()` in `@modelcontextprotocol/sdk/client/auth.js`) keeps
 * for one remote server between its steps. The McpAuthDO loads it from storage before a step and
 * stores it after (the secret parts sealed, token-sealing.ts), so a flow started before a restart
 * or an eviction finishes after it.
 */
export type OAuthState = {
  client?: OAuthClientInformationMixed;
  tokens?: OAuthTokens;
  verifier?: string;
  discovery?: OAuthDiscoveryState;
  /** set when the sealed part was read back (not stored) */
  opened?: boolean;
};

/**
 * The SDK's `OAuthClientProvider` over an `OAuthState` held in memory: no I/O of its own. The
 * authorization URL the SDK wants opened is captured (`authorizationUrl`) for the admin to open;
 * a client registered by hand (`oauth.client_id` in MCP_SERVERS) is offered as the client's
 * information and never replaced by a registration.
 */
export class StoredOAuthProvider implements OAuthClientProvider {
  authorizationUrl: URL | null = null;

  constructor(
    readonly data: OAuthState,
    private readonly config: McpOAuthConfig,
    private readonly redirect: string,
    /** the worker's client ID metadata document, when it is served over https (the SDK requires it) */
    readonly clientMetadataUrl: string | undefined,
    private readonly flowState: string,
  ) {}

  get redirectUrl(): string {
    return this.redirect;
  }

  get clientMetadata(): OAuthClientMetadata {
    return clientMetadataFor(this.redirect, this.config);
  }

  state(): string {
    return this.flowState;
  }

  clientInformation(): OAuthClientInformationMixed | undefined {
    if (this.config.client_id)
      return {
        client_id: this.config.client_id,
        ...(this.config.client_secret ? { client_secret: this.config.client_secret } : {}),
      };
    return this.data.client;
  }

  saveClientInformation(info: OAuthClientInformationMixed): void {
    if (!this.config.client_id) this.data.client = info;
  }

  tokens(): OAuthTokens | undefined {
    return this.data.tokens;
  }

  saveTokens(tokens: OAuthTokens): void {
    this.data.tokens = tokens;
  }

  redirectToAuthorization(url: URL): void {
    this.authorizationUrl = url;
  }

  saveCodeVerifier(verifier: string): void {
    this.data.verifier = verifier;
  }

  codeVerifier(): string {
    if (!this.data.verifier) throw new Error("no authorization is under way for this server");
    return this.data.verifier;
  }

  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.data.discovery = state;
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this.data.discovery;
  }

  invalidateCredentials(scope: "all" | "client" | "tokens" | "verifier" | "discovery"): void {
    if (scope === "all" || scope === "client") delete this.data.client;
    if (scope === "all" || scope === "tokens") delete this.data.tokens;
    if (scope === "all" || scope === "verifier") delete this.data.verifier;
    if (scope === "all" || scope === "discovery") delete this.data.discovery;
  }
}

/** edgeloop as an OAuth client: what it registers, and what its client ID metadata document says. */
export function clientMetadataFor(redirect: string, config?: McpOAuthConfig): OAuthClientMetadata {
  return {
    client_name: "edgeloop",
    redirect_uris: [redirect],
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
    ...(config?.scope ? { scope: config.scope } : {}),
  };
}
