import type { HubFrame, Parsed, ToolManifest } from "@edgeloop/protocol";
import { event, RequestFrame } from "./gateway-frames.js";
import { invokeFor } from "./node-tools.js";

/**
 * The OpenClaw wire's text in and out, pure: a node's text as the request it makes (a node only
 * makes requests), and the hub's frame as the event a node reads. What a request means is
 * node-requests.ts's and the connect's (node-admission.ts).
 */

/** A node's text as a gateway request frame, or why it is not one. */
export function readNodeRequest(text: string): Parsed<RequestFrame> {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { ok: false, error: "not JSON", issues: [] };
  }
  const req = RequestFrame.safeParse(json);
  if (!req.success)
    return { ok: false, error: `not a request frame: ${req.error.issues[0]?.message ?? ""}`, issues: [] };
  return { ok: true, value: req.data };
}

/**
 * The hub's frame for a node (`nodeId` once it signed in; `tools`, what the hub knows it has;
 * `executionId`, its connection's Computer Use execution): a
 * command as `node.invoke.request` or `node.invoke.cancel`; null for a frame a node has no use for
 * (acks, refusals: it keeps no results); false for a command it cannot take (not signed in, or a
 * tool it no longer has, which then ends `not_sent` at its deadline).
 */
export function nodeEventFor(
  frame: HubFrame,
  nodeId: string | undefined,
  tools: ToolManifest[],
  executionId?: string,
): string | null | false {
  if (frame.type !== "command") return null;
  if (!nodeId) return false;
  if (frame.command === "cancel")
    return JSON.stringify(event("node.invoke.cancel", { invokeId: frame.request_id, nodeId }));
  const { tool, parameters, timeout_ms } = frame.payload;
  const computer = tools.some((t) => t.binary === "computer.act");
  const invoke = invokeFor(
    tools.find((t) => t.name === tool),
    parameters,
    timeout_ms,
    executionId ? { executionId, computer } : {},
  );
  if (!invoke) return false;
  return JSON.stringify(
    event("node.invoke.request", {
      id: frame.request_id,
      nodeId,
      command: invoke.command,
      paramsJSON: JSON.stringify(invoke.params),
      timeoutMs: timeout_ms,
      idempotencyKey: frame.request_id,
    }),
  );
}
