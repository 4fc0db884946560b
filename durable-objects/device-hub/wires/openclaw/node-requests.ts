import type { DeviceFrame, Parsed, SkillManifest } from "@edgeloop/protocol";
import {
  NodeInvokeProgressParams,
  NodeInvokeResultParams,
  NodePluginToolsUpdateParams,
  NodeSkillsUpdateParams,
  type Published,
  type RequestFrame,
  responseError,
  responseOk,
} from "./gateway-frames.js";
import { outcomeOf, skillsFor } from "./node-tools.js";

/**
 * Every request a signed-in node makes gets an answer (OpenClaw's client waits 30 s for each), and
 * the ones that matter become the edgeloop frame the hub handles: a result, progress, or new
 * tools. Pure apart from reading the ledger: the hub does the rest.
 */

/** What this reads of a ledger row (ledger.ts), typed here so the pure code needs no Workers types. */
type CommandRow = {
  tool: string;
  created_at: number;
  frame: { payload: { timeout_ms: number; parameters?: Record<string, unknown> } };
};

/** Commands whose output comes only as progress: the hub keeps it for the result (control-results.ts). */
const OUTPUT_IN_PROGRESS = new Set(["agent.cli.claude.run.v1"]);

type Deps = {
  ledger: { get(requestId: string): CommandRow | null };
  /** what the node advertised at connect */
  commands: () => string[];
  /** what it published since (tools, skills), and keeping an update of it */
  published: () => Published;
  savePublished: (p: Partial<Published>) => void;
  /** a command's progress text, kept for its result */
  output: { append(requestId: string, chunk: string): void; take(requestId: string): string };
  /** what the hub knows of the node: its tools and capabilities */
  device: () => { skills: SkillManifest[]; capabilities: string[] };
  now: number;
};

export type NodeAnswer = { response: object; frame: Parsed<DeviceFrame> | null };

const invalid = (id: string, message: string): NodeAnswer => ({
  response: responseError(id, { code: "INVALID_REQUEST", message }),
  frame: null,
});

const issue = (e: { issues: { path: PropertyKey[]; message: string }[] }) =>
  `${e.issues[0]?.path.join(".") ?? ""} ${e.issues[0]?.message ?? ""}`.trim();

/** The node's whole manifest after it published something: commands, tools and skills together. */
function manifestUpdate(id: string, d: Deps, p: Published): NodeAnswer {
  const skills = skillsFor(d.commands(), p.tools, p.skills);
  return {
    response: responseOk(id, { ok: true }),
    frame: {
      ok: true,
      value: { type: "manifest_update", capabilities: d.device().capabilities, skills, filtered: [] },
    },
  };
}

/** The node command a tool runs (its manifest's `binary`, up to a published tool's `#…`). */
const commandOf = (d: Deps, tool: string) =>
  d
    .device()
    .skills.flatMap((s) => s.tools)
    .find((t) => t.name === tool)
    ?.binary.split("#")[0] ?? "";

export function answerNodeRequest(req: RequestFrame, d: Deps): NodeAnswer {
  const { id, method, params } = req;
  switch (method) {
    case "node.invoke.result": {
      const r = NodeInvokeResultParams.safeParse(params);
      if (!r.success) return invalid(id, `invalid node.invoke.result: ${issue(r.error)}`);
      const row = d.ledger.get(r.data.id);
      // Unknown ids go to the hub, which refuses and counts them like any device's.
      const tool = row?.tool ?? "unknown";
      const command = commandOf(d, tool);
      const timing = { timeoutMs: row?.frame.payload.timeout_ms ?? 0, elapsedMs: row ? d.now - row.created_at : 0 };
      const stdout = OUTPUT_IN_PROGRESS.has(command) ? d.output.take(r.data.id) : "";
      const outcome = outcomeOf(tool, command, r.data, timing, { args: row?.frame.payload.parameters, stdout });
      return {
        response: responseOk(id, { ok: true }),
        frame: { ok: true, value: { type: "result", request_id: r.data.id, ...outcome } as DeviceFrame },
      };
    }
    case "node.invoke.progress": {
      const p = NodeInvokeProgressParams.safeParse(params);
      if (!p.success) return invalid(id, `invalid node.invoke.progress: ${issue(p.error)}`);
      const { invokeId, chunk } = p.data;
      const row = chunk ? d.ledger.get(invokeId) : null;
      if (row && OUTPUT_IN_PROGRESS.has(commandOf(d, row.tool))) d.output.append(invokeId, chunk);
      // An empty chunk is the node's heartbeat for a running command: it has taken it.
      const frame: DeviceFrame = chunk
        ? { type: "progress", request_id: invokeId, content: [{ type: "text", text: chunk }] }
        : { type: "accepted", request_id: invokeId, by: "agent" };
      return { response: responseOk(id, { ok: true }), frame: { ok: true, value: frame } };
    }
    case "node.pluginTools.update": {
      const u = NodePluginToolsUpdateParams.safeParse(params);
      if (!u.success) return invalid(id, `invalid node.pluginTools.update: ${issue(u.error)}`);
      d.savePublished({ tools: u.data.tools });
      return manifestUpdate(id, d, { ...d.published(), tools: u.data.tools });
    }
    // A device's skills reach the model through the `skill` built-in (docs/openclaw-nodes.md).
    case "node.skills.update": {
      const u = NodeSkillsUpdateParams.safeParse(params);
      if (!u.success) return invalid(id, `invalid node.skills.update: ${issue(u.error)}`);
      d.savePublished({ skills: u.data.skills });
      return manifestUpdate(id, d, { ...d.published(), skills: u.data.skills });
    }
    case "node.event": {
      const name = (params as { event?: unknown } | undefined)?.event;
      if (typeof name !== "string" || !name) return invalid(id, "node.event needs an event name");
      return { response: responseOk(id, { ok: true, event: name, handled: false }), frame: null };
    }
    // No edgeloop skill puts binaries on a node's exec allowlist.
    case "skills.bins":
      return { response: responseOk(id, { bins: [] }), frame: null };
    default:
      return invalid(id, `unknown method: ${method}`);
  }
}
