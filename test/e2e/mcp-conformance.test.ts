/**
 * The official MCP conformance suite (`@modelcontextprotocol/conformance`, on Node 24) against
 * `POST /mcp` of a real `wrangler dev` worker: the server scenarios that apply to the fleet
 * whatever its devices' tools (docs/mcp.md#conformance says which, and why not the others). The
 * suite sends no token, so a loopback proxy adds the API token and passes Host and Origin as sent.
 */
import { execFile } from "node:child_process";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BearerProxy, startBearerProxy } from "../helpers/bearer-proxy.js";
import { API_TOKEN } from "../helpers/local-worker.js";
import { nodeWithPackages } from "../helpers/pinned-node.js";
import { sharedWorker } from "../helpers/shared-stack.js";

const CONFORMANCE = "@modelcontextprotocol/conformance@0.1.16";
const SCENARIOS = [
  "server-initialize",
  "ping",
  "tools-list",
  "server-sse-polling",
  "server-sse-multiple-streams",
  "dns-rebinding-protection",
];

let proxy: BearerProxy;
let tools: ReturnType<typeof nodeWithPackages>;

beforeAll(async () => {
  tools = nodeWithPackages([CONFORMANCE]);
  // The suite's shared worker: these scenarios hold whatever devices and tools the fleet has.
  proxy = await startBearerProxy((await sharedWorker()).url, API_TOKEN);
}, 900_000);

afterAll(async () => {
  await proxy?.stop();
});

/** Asynchronously: the proxy runs in this process and must keep answering meanwhile. */
function runScenario(scenario: string, url: string): Promise<{ status: number | null; output: string }> {
  const cli = join(tools.modules, "@modelcontextprotocol/conformance/dist/index.js");
  const args = [cli, "server", "--url", url, "--scenario", scenario, "--verbose"];
  return new Promise((resolve) => {
    execFile(tools.node, args, { timeout: 120_000, env: { ...process.env, NO_COLOR: "1" } }, (error, stdout, stderr) =>
      resolve({
        status: error ? (typeof error.code === "number" ? error.code : null) : 0,
        output: `${stdout}\n${stderr}`,
      }),
    );
  });
}

describe("MCP conformance suite against /mcp", () => {
  // The DNS-rebinding scenario requires a loopback URL by name; localhost is one.
  const target = () => `${proxy.url.replace("127.0.0.1", "localhost")}/mcp`;

  for (const scenario of SCENARIOS) {
    it(`passes ${scenario}`, async () => {
      const { status, output } = await runScenario(scenario, target());
      expect(status, output).toBe(0);
      expect(output).not.toMatch(/"status": "FAILURE"/);
      // server-sse-polling checks only streams that carry event ids; /mcp answers plain requests
      // with JSON, so the scenario reports no check either way (docs/mcp.md#conformance).
      if (scenario !== "server-sse-polling") expect(output).toMatch(/"status": "SUCCESS"/);
    }, 150_000);
  }
});
