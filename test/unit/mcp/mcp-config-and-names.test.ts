import { describe, expect, it } from "vitest";
import {
  parseMcpServers,
  policyOf,
  remoteToolName,
} from "../../../durable-objects/conversation/mcp/mcp-servers-config.js";
import { fleetToolName, parseFleetToolName } from "../../../protocol/fleet-tool-names.js";
import { checkOutboundUrl } from "../../../runtime/outbound-url.js";
import { callToolResult } from "../../../worker/mcp/call-results.js";
import { progressText } from "../../../worker/mcp/follow-run.js";

describe("checkOutboundUrl, the one rule for URLs called on a tool's behalf", () => {
  it("https always; http only under the local-testing flag; anything else refused with the reason", () => {
    expect(checkOutboundUrl("https://mcp.example.com/mcp", { allowPrivate: false })).toMatchObject({ ok: true });
    expect(checkOutboundUrl("http://127.0.0.1:3001/mcp", { allowPrivate: true })).toMatchObject({ ok: true });
    expect(checkOutboundUrl("http://127.0.0.1:3001/mcp", { allowPrivate: false })).toEqual({
      ok: false,
      kind: "refused",
      reason: "only https URLs are allowed (got http://127.0.0.1:3001)",
    });
    expect(checkOutboundUrl("ftp://x", { allowPrivate: true })).toMatchObject({ ok: false, kind: "refused" });
    expect(checkOutboundUrl("not a url", { allowPrivate: true })).toMatchObject({ ok: false, kind: "invalid" });
  });
});

describe("MCP_SERVERS", () => {
  it("reads entries with their defaults; blank is none", () => {
    expect(parseMcpServers(undefined)).toEqual({ ok: true, value: [] });
    const parsed = parseMcpServers(JSON.stringify([{ name: "docs", url: "https://mcp.example.com/mcp", bearer: "t" }]));
    expect(parsed).toEqual({
      ok: true,
      value: [
        {
          name: "docs",
          url: "https://mcp.example.com/mcp",
          bearer: "t",
          headers: {},
          policy: "auto",
          timeout_secs: 30,
          max_retries: 2,
          elicitation_timeout_secs: 300,
        },
      ],
    });
  });

  it("names the failing field; refuses duplicate names and names that would break the `__` separator", () => {
    const bad = parseMcpServers(
      JSON.stringify([
        { name: "a_b", url: "https://x" },
        { name: "c", url: "nope" },
      ]),
    );
    expect(bad).toMatchObject({ ok: false });
    expect(!bad.ok && bad.error).toMatch(/\[0\]\.name: 1-32 letters, digits or '-'/);
    expect(!bad.ok && bad.error).toMatch(/\[1\]\.url: must be an absolute http\(s\) URL/);
    const twice = parseMcpServers(
      JSON.stringify([
        { name: "a", url: "https://x" },
        { name: "a", url: "https://y" },
      ]),
    );
    expect(!twice.ok && twice.error).toBe('[1].name: duplicate server name "a"');
    expect(parseMcpServers("{").ok).toBe(false);
  });

  it("tool names and policies", () => {
    expect(remoteToolName("docs", "search.pages")).toBe("docs__search_pages");
    expect(remoteToolName("docs", "x".repeat(70))).toBeNull();
    const server = { policy: { write: "requires_approval" } } as never;
    expect([policyOf(server, "write"), policyOf(server, "read")]).toEqual(["requires_approval", "auto"]);
  });
});

describe("the fleet's MCP names and results", () => {
  it("{agent_id}__{tool}, split at the first `__`; ids that would be ambiguous are left out", () => {
    expect(fleetToolName("pi-1", "bash")).toBe("pi-1__bash");
    expect(parseFleetToolName("pi-1__every__echo")).toEqual({ agent_id: "pi-1", tool: "every__echo" });
    expect(parseFleetToolName("pi_1__bash")).toEqual({ agent_id: "pi_1", tool: "bash" });
    expect(fleetToolName("pi__1", "bash")).toBeNull();
    expect(fleetToolName("pi_", "bash")).toBeNull();
    expect(parseFleetToolName("send_message")).toBeNull();
    expect(parseFleetToolName("pi-1__")).toBeNull();
  });

  it("an outcome as a CallToolResult: blocks, notes, errors", () => {
    expect(
      callToolResult({
        status: "success",
        tool: "t",
        result: "ignored when there are blocks",
        stderr: "warn",
        exit_code: 0,
        elapsed_ms: 3,
        content: [
          { type: "text", text: "look" },
          { type: "image", data: "AAAA", mimeType: "image/png" },
        ],
      }),
    ).toEqual({
      content: [
        { type: "text", text: "look" },
        { type: "image", data: "AAAA", mimeType: "image/png" },
        { type: "text", text: "[stderr]\nwarn" },
      ],
    });
    expect(callToolResult({ status: "error", tool: "t", error: "gone", error_type: "unavailable" })).toEqual({
      isError: true,
      content: [{ type: "text", text: "unavailable: gone" }],
    });
    expect(callToolResult({ status: "blocked", tool: "t", reason: "no" }).content).toEqual([
      { type: "text", text: "blocked: no" },
    ]);
  });

  it("progress lines from the conversation's events", () => {
    const at = { seq: 1, at: 0 };
    expect(
      progressText({ ...at, type: "tool_execution_start", toolCallId: "c", toolName: "bash", args: {} }, "x"),
    ).toBe("calling bash");
    expect(
      progressText({ ...at, type: "approval_required", toolCallId: "c1", toolName: "bash", args: {} }, "conv"),
    ).toBe("waiting for approval of bash: POST /v1/conversations/conv/approvals/c1");
    expect(progressText({ ...at, type: "message_delta", delta: "x" }, "conv")).toBeNull();
  });
});
