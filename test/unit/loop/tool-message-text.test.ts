/** What the model reads for each kind of tool outcome: the error, and what it can do next. */
import type { ToolOutcome } from "@edgeloop/protocol";
import { describe, expect, it } from "vitest";
import { toolCallCorrectionRequest, toolMessageText } from "../../../durable-objects/conversation/core/index.js";

const error = (error_type: string, error: string, extra: object = {}) =>
  ({ status: "error", tool: "bash", error, error_type, ...extra }) as ToolOutcome;

describe("toolMessageText: errors", () => {
  it("a timeout names the command when there was one, and suggests a shorter timeout", () => {
    expect(toolMessageText(error("timeout", "timed out after 5000ms"), { command: "make" }, "pi-1")).toBe(
      "Error: timed out after 5000ms. Command: 'make'.\nTry again with a shorter timeout or explain to the user.",
    );
    expect(toolMessageText(error("timeout", "timed out"), { path: "/a" }, "pi-1")).toBe(
      "Error: timed out.\nTry again with a shorter timeout or explain to the user.",
    );
    expect(toolMessageText(error("timeout", "timed out"), null, "pi-1")).toBe(
      "Error: timed out.\nTry again with a shorter timeout or explain to the user.",
    );
  });

  it("a permission error says the agent may not do it", () => {
    expect(toolMessageText(error("permission_denied", "path outside the sandbox"), {}, "pi-1")).toBe(
      "Error: Permission denied for tool 'bash': path outside the sandbox\nThis agent is not allowed to do that. Explain to the user.",
    );
  });

  it("invalid parameters are said once, whoever wrote the error", () => {
    expect(toolMessageText(error("invalid_params", "Invalid parameters for 'bash': missing 'command'"), {}, null)).toBe(
      "Error: Invalid parameters for 'bash': missing 'command'",
    );
    expect(toolMessageText(error("invalid_params", "flag -z is unknown"), {}, null)).toBe(
      "Error: Invalid parameters for 'bash': flag -z is unknown",
    );
  });

  it("an unknown tool asks the model to choose an available one", () => {
    expect(toolMessageText(error("not_found", "Tool 'x' not found."), {}, null)).toBe(
      "Error: Tool 'x' not found.\nPlease choose an available tool or explain to the user.",
    );
  });

  it("unavailable names the device for a device call and the tool otherwise", () => {
    expect(toolMessageText(error("unavailable", "offline"), {}, "pi-1")).toBe(
      "Error: Device 'pi-1' is unavailable: offline\nThe tool did not run. Explain to the user or try again later.",
    );
    expect(toolMessageText(error("unavailable", "502 from the server"), {}, null)).toBe(
      "Error: Tool 'bash' is unavailable: 502 from the server\nExplain to the user or try again later.",
    );
  });

  it("a cancelled call says so", () => {
    expect(toolMessageText(error("cancelled", "the run was cancelled"), {}, "pi-1")).toBe(
      "Error: Tool 'bash' was cancelled: the run was cancelled",
    );
  });

  it("a failed command shows its exit code and stderr when it has them", () => {
    expect(
      toolMessageText(error("execution_failed", "exit 2", { exit_code: 2, stderr: "no such file" }), {}, "pi-1"),
    ).toBe("Error: Tool 'bash' failed: exit 2\nexit code: 2\nstderr:\nno such file");
    expect(toolMessageText(error("execution_failed", "crashed", { exit_code: 0 }), {}, "pi-1")).toBe(
      "Error: Tool 'bash' failed: crashed\nexit code: 0",
    );
    expect(toolMessageText(error("execution_failed", "crashed"), {}, "pi-1")).toBe(
      "Error: Tool 'bash' failed: crashed",
    );
  });
});

describe("toolMessageText: success", () => {
  const success = (extra: object) =>
    ({ status: "success", tool: "bash", result: "out", stderr: "", exit_code: 0, ...extra }) as ToolOutcome;

  it("is the result alone when the command exited 0 with no stderr", () => {
    expect(toolMessageText(success({}), {}, "pi-1")).toBe("out");
  });

  it("adds a non-zero exit code, stderr and a device-side cut", () => {
    expect(
      toolMessageText(
        success({ exit_code: 1, stderr: "warn", truncated: true, bytes_returned: 10, bytes_total: 99 }),
        {},
        "pi-1",
      ),
    ).toBe("out\n[exit code 1]\n[stderr]\nwarn\n[output truncated on the device: 10 of 99 bytes returned]");
    expect(toolMessageText(success({ truncated: true }), {}, "pi-1")).toBe(
      "out\n[output truncated on the device: ? of ? bytes returned]",
    );
  });

  it("reads content blocks in order, an image as its type and size", () => {
    const content = [
      { type: "text", text: "first" },
      { type: "image", mimeType: "image/png", data: "A".repeat(400) },
      { type: "text", text: "last" },
    ];
    expect(toolMessageText(success({ content }), {}, null)).toBe("first\n[image image/png, 300 bytes]\nlast");
    expect(toolMessageText(success({ content: [] }), {}, null)).toBe("out");
  });
});

describe("toolCallCorrectionRequest", () => {
  it("asks for one corrected JSON call and lists the tools", () => {
    expect(toolCallCorrectionRequest("unbalanced braces", ["bash", "read"])).toBe(
      [
        "Your last reply tried to call a tool, but the call could not be read: unbalanced braces.",
        "Reply with only the corrected tool call as one valid JSON object and no other text:",
        '{"tool": "<tool name>", "args": {...}}',
        "Available tools: bash, read.",
      ].join("\n"),
    );
    expect(toolCallCorrectionRequest("x", [])).toContain("Available tools: (none).");
  });
});
