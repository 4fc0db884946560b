import type { ToolOutcome } from "@edgeloop/protocol/device-frames";
import type { ErrorType } from "@edgeloop/protocol/error-types";
import { outcomeFromMcpResult } from "@edgeloop/protocol/mcp-results";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { SHUTDOWN_REASON, type ToolCall } from "../executor/executor.js";
import type { McpRoute } from "./mcp-manifest.js";
import { type McpServer, ServerDown } from "./mcp-server.js";

/**
 * One tool command as an MCP `tools/call`. The command's timeout and our cancel are the request's
 * own timeout and abort signal: the SDK sends `notifications/cancelled` to the server for both.
 * MCP progress notifications become progress lines. Errors are values, typed as a binary's are.
 */
export async function callMcpTool(
  server: McpServer,
  route: McpRoute,
  call: ToolCall,
  limits: { outputCapBytes: number },
): Promise<ToolOutcome> {
  const tool = call.tool;
  const timeoutMs = Math.min(call.timeoutMs, route.manifest.max_timeout_ms);
  const started = Date.now();
  const fail = (error_type: ErrorType, error: string): ToolOutcome => ({
    status: "error",
    tool,
    error,
    error_type,
    elapsed_ms: Date.now() - started,
  });
  try {
    const result = await server.call(route.tool, call.parameters, {
      requestId: call.requestId,
      timeoutMs,
      ...(call.signal ? { signal: call.signal } : {}),
      ...(call.onProgress ? { onProgress: call.onProgress } : {}),
      ...(call.traceparent ? { traceparent: call.traceparent } : {}),
    });
    return outcomeFromMcpResult(tool, result, {
      maxTextBytes: limits.outputCapBytes,
      // Images are base64 in a JSON frame: keep them well under the hub's frame limit.
      maxImageChars: limits.outputCapBytes * 3,
      elapsedMs: Date.now() - started,
    });
  } catch (e) {
    if (e instanceof ServerDown) return fail("unavailable", e.message);
    if (call.signal?.aborted) {
      const why = call.signal.reason === SHUTDOWN_REASON ? " because the device agent is shutting down" : "";
      return fail("cancelled", `Tool '${tool}' was cancelled${why}`);
    }
    if (e instanceof McpError) {
      switch (e.code) {
        case ErrorCode.RequestTimeout:
          return fail("timeout", `Tool '${tool}' timed out after ${timeoutMs}ms`);
        case ErrorCode.ConnectionClosed:
          return fail("execution_failed", "the MCP server exited during the call");
        case ErrorCode.InvalidParams:
          return fail("invalid_params", `Invalid parameters for '${tool}': ${e.message}`);
        case ErrorCode.MethodNotFound:
          return fail("not_found", `Tool '${tool}': ${e.message}`);
      }
    }
    return fail("execution_failed", `MCP error: ${e instanceof Error ? e.message : String(e)}`);
  }
}
