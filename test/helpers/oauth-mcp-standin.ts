/**
 * A remote MCP server that requires OAuth, on loopback, for the end-to-end tests: the MCP SDK's
 * server (Streamable HTTP, stateless) behind a bearer check, and a small authorization server
 * beside it (protected-resource and authorization-server metadata, dynamic registration, the
 * authorization endpoint approving at once as a consenting admin would, PKCE S256, refresh tokens
 * that rotate). It stands in for a hosted server (a code host, a tracker), which cannot run here.
 * The test turns its knobs: expire every access token, refuse refreshes.
 */
import { createHash, randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";

export type OAuthMcpStandin = {
  url: string;
  /** the MCP endpoint */
  mcpUrl: string;
  /** every access token issued so far stops working (as at its expiry) */
  expireAccessTokens(): void;
  /** refresh requests are answered `invalid_grant` (a revoked grant) while set */
  refuseRefresh: boolean;
  /** what the token endpoint and the MCP endpoint saw */
  counts: { authorizationCodes: number; refreshes: number; refusedRefreshes: number; toolCalls: number };
  close(): Promise<void>;
};

type Client = { client_id: string; redirect_uris: string[] };
type Code = { client_id: string; redirect_uri: string; challenge: string };

export async function startOAuthMcpStandin(opts: { expiresIn?: number; port?: number } = {}): Promise<OAuthMcpStandin> {
  const clients = new Map<string, Client>();
  const codes = new Map<string, Code>();
  const access = new Set<string>();
  const refresh = new Map<string, string>(); // refresh token → client_id
  const counts = { authorizationCodes: 0, refreshes: 0, refusedRefreshes: 0, toolCalls: 0 };
  let base = "";
  const state = { refuseRefresh: false };

  const issue = (clientId: string) => {
    const at = `at-${randomBytes(12).toString("hex")}`;
    const rt = `rt-${randomBytes(12).toString("hex")}`;
    access.add(at);
    refresh.set(rt, clientId);
    return {
      access_token: at,
      token_type: "Bearer",
      refresh_token: rt,
      ...(opts.expiresIn ? { expires_in: opts.expiresIn } : {}),
    };
  };

  const server = createServer(async (req, res) => {
    try {
      await handle(req, res);
    } catch (e) {
      res.writeHead(500).end(String(e));
    }
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", base);
    const body = req.method === "POST" ? await readBody(req) : "";
    const json = (status: number, value: unknown): void => {
      res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(value));
    };
    switch (`${req.method} ${url.pathname}`) {
      case "GET /.well-known/oauth-protected-resource/mcp":
        return json(200, { resource: `${base}/mcp`, authorization_servers: [base] });
      case "GET /.well-known/oauth-authorization-server":
        return json(200, {
          issuer: base,
          authorization_endpoint: `${base}/authorize`,
          token_endpoint: `${base}/token`,
          registration_endpoint: `${base}/register`,
          response_types_supported: ["code"],
          grant_types_supported: ["authorization_code", "refresh_token"],
          code_challenge_methods_supported: ["S256"],
          token_endpoint_auth_methods_supported: ["none"],
        });
      case "POST /register": {
        const meta = JSON.parse(body) as { redirect_uris?: string[] };
        const client = {
          client_id: `client-${randomBytes(6).toString("hex")}`,
          redirect_uris: meta.redirect_uris ?? [],
        };
        clients.set(client.client_id, client);
        return json(201, { ...meta, ...client, token_endpoint_auth_method: "none" });
      }
      case "GET /authorize": {
        const q = url.searchParams;
        const client = clients.get(q.get("client_id") ?? "");
        const redirect = q.get("redirect_uri") ?? "";
        if (!client?.redirect_uris.includes(redirect)) return json(400, { error: "invalid_request" });
        if (q.get("code_challenge_method") !== "S256" || !q.get("code_challenge"))
          return json(400, { error: "invalid_request", error_description: "PKCE S256 required" });
        const code = `code-${randomBytes(12).toString("hex")}`;
        codes.set(code, { client_id: client.client_id, redirect_uri: redirect, challenge: q.get("code_challenge")! });
        const back = new URL(redirect);
        back.searchParams.set("code", code);
        if (q.get("state")) back.searchParams.set("state", q.get("state")!);
        res.writeHead(302, { location: back.href }).end();
        return;
      }
      case "POST /token": {
        const form = new URLSearchParams(body);
        if (form.get("grant_type") === "authorization_code") {
          const code = codes.get(form.get("code") ?? "");
          codes.delete(form.get("code") ?? "");
          const verifier = form.get("code_verifier") ?? "";
          const challenge = createHash("sha256").update(verifier).digest("base64url");
          if (!code || code.challenge !== challenge || code.redirect_uri !== form.get("redirect_uri"))
            return json(400, { error: "invalid_grant" });
          counts.authorizationCodes++;
          return json(200, issue(code.client_id));
        }
        if (form.get("grant_type") === "refresh_token") {
          const rt = form.get("refresh_token") ?? "";
          const clientId = refresh.get(rt);
          if (state.refuseRefresh || !clientId) {
            counts.refusedRefreshes++;
            return json(400, { error: "invalid_grant", error_description: "the grant was revoked" });
          }
          refresh.delete(rt); // rotation: a refresh token is good once
          counts.refreshes++;
          return json(200, issue(clientId));
        }
        return json(400, { error: "unsupported_grant_type" });
      }
      case "POST /mcp":
      case "GET /mcp":
      case "DELETE /mcp": {
        const token = (req.headers.authorization ?? "").replace(/^Bearer /, "");
        if (!access.has(token)) {
          res
            .writeHead(401, {
              "www-authenticate": `Bearer resource_metadata="${base}/.well-known/oauth-protected-resource/mcp"`,
            })
            .end();
          return;
        }
        if (req.method !== "POST") return json(405, { error: "stateless" });
        const mcp = new McpServer({ name: "oauth-standin", version: "1.0.0" });
        mcp.registerTool("whoami", { description: "Says who the caller is" }, async () => {
          counts.toolCalls++;
          return { content: [{ type: "text", text: "you are edgeloop, authorized" }] };
        });
        const transport = new StreamableHTTPServerTransport({
          sessionIdGenerator: undefined,
          enableJsonResponse: true,
        });
        await mcp.connect(transport);
        await transport.handleRequest(req, res, JSON.parse(body));
        return;
      }
      default:
        return json(404, { error: "not_found" });
    }
  }

  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: base,
    mcpUrl: `${base}/mcp`,
    expireAccessTokens: () => access.clear(),
    get refuseRefresh() {
      return state.refuseRefresh;
    },
    set refuseRefresh(v: boolean) {
      state.refuseRefresh = v;
    },
    counts,
    close: () => closeServer(server),
  };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let data = "";
    req.on("data", (chunk) => {
      data += chunk;
    });
    req.on("end", () => resolve(data));
    req.on("error", reject);
  });
}

function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}
