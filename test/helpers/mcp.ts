/** MCP pieces the end-to-end tests share: skill folders for npm MCP servers, and the SDK client on /mcp. */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { API_TOKEN } from "./local-worker.js";
import { REPO_ROOT } from "./processes.js";
import { tempDir } from "./temp-dir.js";

export const MCP_PACKAGES = join(REPO_ROOT, "node_modules/@modelcontextprotocol");
export const FILESYSTEM_SERVER = join(MCP_PACKAGES, "server-filesystem/dist/index.js");
export const EVERYTHING_SERVER = join(MCP_PACKAGES, "server-everything/dist/index.js");
export const TOOL_ADDING_SERVER = join(REPO_ROOT, "test/fixtures/mcp/tool-adding-server.mjs");

/** A skill folder whose skill.toml declares `[mcp]` with these TOML lines. */
export function mcpSkill(name: string, mcpToml: string): string {
  const dir = join(tempDir(`edgeloop-mcp-skill-${name}-`), name);
  mkdirSync(dir);
  writeFileSync(join(dir, "skill.toml"), `[skill]\nname = "${name}"\n\n[mcp]\n${mcpToml}\n`);
  return dir;
}

/** The reference filesystem server over the agent's workspace, sandboxed. */
export const filesystemSkill = () =>
  mcpSkill(
    "fs",
    `command = ["node", "${FILESYSTEM_SERVER}", "{workspace}"]\npermissions = ["file_read", "file_write"]\nsandboxing = "bubblewrap"`,
  );
export const everythingSkill = () => mcpSkill("every", `command = ["node", "${EVERYTHING_SERVER}", "stdio"]`);
export const toolAddingSkill = () => mcpSkill("grow", `command = ["node", "${TOOL_ADDING_SERVER}"]`);

/** The official SDK client on the worker's /mcp, connected (initialize done). */
export async function fleetClient(
  url: string,
  opts: { token?: string; sessionId?: string } = {},
): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const transport = new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${opts.token ?? API_TOKEN}` } },
    ...(opts.sessionId ? { sessionId: opts.sessionId } : {}),
  });
  const client = new Client({ name: "edgeloop-e2e", version: "1.0.0" });
  await client.connect(transport);
  return { client, transport };
}

/** The text blocks of a CallToolResult, joined. */
export function resultText(result: unknown): string {
  return (((result as { content?: unknown }).content ?? []) as { type: string; text?: string }[])
    .filter((b) => b.type === "text")
    .map((b) => b.text)
    .join("\n");
}
