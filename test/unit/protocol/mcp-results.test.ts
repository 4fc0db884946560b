import { outcomeFromMcpResult } from "@edgeloop/protocol";
import { describe, expect, it } from "vitest";

const limits = { maxTextBytes: 1000, maxImageChars: 100, elapsedMs: 7 };

describe("outcomeFromMcpResult", () => {
  it("text stays text; resources are text naming their URI; structured content only without text", () => {
    const out = outcomeFromMcpResult(
      "t",
      {
        content: [
          { type: "text", text: "hello" },
          { type: "resource", resource: { uri: "file:///a.txt", text: "inside a" } },
          { type: "resource", resource: { uri: "file:///b.bin", mimeType: "application/zip", blob: "AAAA" } },
          { type: "resource_link", uri: "file:///c", name: "c" },
          { type: "audio", data: "AAAA", mimeType: "audio/wav" },
        ],
        structuredContent: { ignored: true },
      },
      limits,
    );
    expect(out).toEqual({
      status: "success",
      tool: "t",
      result:
        "hello\n[resource file:///a.txt]\ninside a\n[resource file:///b.bin application/zip, 3 bytes: binary content not shown]\n[resource link file:///c (c)]\n[audio audio/wav, 3 bytes: not shown]",
      stderr: "",
      exit_code: 0,
      elapsed_ms: 7,
    });
    const structured = outcomeFromMcpResult("t", { content: [], structuredContent: { sum: 3 } }, limits);
    expect(structured).toMatchObject({ status: "success", result: '{\n  "sum": 3\n}' });
  });

  it("images are kept as blocks within the cap; beyond it they are described", () => {
    const img = (n: number) => ({ type: "image", data: "A".repeat(n), mimeType: "image/png" });
    const out = outcomeFromMcpResult("t", { content: [{ type: "text", text: "x" }, img(80), img(40)] }, limits);
    expect(out.status === "success" && out.content).toEqual([
      { type: "text", text: "x" },
      { type: "image", data: "A".repeat(80), mimeType: "image/png" },
      { type: "text", text: "[image image/png, 30 bytes, over the image cap]" },
    ]);
  });

  it("isError is execution_failed with the server's text; long text is cut with the byte counts", () => {
    expect(
      outcomeFromMcpResult("t", { isError: true, content: [{ type: "text", text: "no such file" }] }, limits),
    ).toEqual({ status: "error", tool: "t", error: "no such file", error_type: "execution_failed", elapsed_ms: 7 });
    expect(outcomeFromMcpResult("t", { isError: true, content: [] }, limits)).toMatchObject({
      error: "the MCP server reported an error without a message",
    });
    const long = outcomeFromMcpResult("t", { content: [{ type: "text", text: "é".repeat(600) }] }, limits);
    expect(long).toMatchObject({ truncated: true, bytes_total: 1200, bytes_returned: 1000 });
    expect(long.status === "success" && long.result).toBe("é".repeat(500));
  });
});
