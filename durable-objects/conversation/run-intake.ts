import { type ToolSpec, toolSpecsFromSkills } from "@edgeloop/protocol";
import type { ApprovalRuleMatch } from "@edgeloop/protocol/approval-rules";
import { hubFor } from "../addresses.js";
import type { DurableObjectBindings } from "../bindings.js";
import { rulesInForceFor } from "../deployment/in-force.js";
import { BUILTINS, builtinToolSpecs, questionToolSpec } from "./builtins/index.js";
import { type WebhookTool, webhookToolSpecs } from "./builtins/webhook-tools.js";
import type { PostMessageInput } from "./conversation-rpc.js";
import { mayNeedApproval } from "./core/approval-rules.js";
import type { LoopConfig, LoopEvent } from "./core/index.js";
import { fleetToolSpecs } from "./fleet/fleet-tool-specs.js";
import type { RemoteMcpTools } from "./mcp/remote-mcp-tools.js";
import type { ConversationSettings } from "./settings/conversation-settings.js";
import { storeInputImages } from "./storage/image-intake.js";
import type { ImageStore } from "./storage/image-store.js";

/**
 * What a new message or a direct call brings to the loop, read before its event is applied: the
 * tools it may use, the approval rules in force for its device and owner, and the context settings
 * that follow the deployment.
 */

type Env = Pick<DurableObjectBindings, "DEVICE_HUB" | "DEPLOYMENT">;

/**
 * A message's device tools: a fleet's (every device's, named by fleetToolSpecs), else its one
 * device's, asked of the hub in the same call that tells whether the message is refused for a
 * device that never connected (neverConnectedRefusal).
 */
export async function messageDeviceTools(
  env: Env,
  input: { agent_id: string; fleet?: string[] | undefined },
): Promise<{ ok: true; tools: ToolSpec[] } | NeverConnected> {
  if (input.fleet) {
    const skills = await Promise.all(
      input.fleet.map(async (id) => ({ agent_id: id, skills: await hubFor(env, id).getSkills(id) })),
    );
    return { ok: true, tools: fleetToolSpecs(skills) };
  }
  const intake = await hubFor(env, input.agent_id).getIntake(input.agent_id);
  if (intake.never_connected) return neverConnectedRefusal(input.agent_id);
  return { ok: true, tools: toolSpecsFromSkills(intake.skills) };
}

/** A message's tools: its devices' (messageDeviceTools), the orchestrator's, and the remote MCP servers'. */
export async function messageTools(
  remoteMcp: RemoteMcpTools,
  settings: ConversationSettings,
  input: { conversation_id: string },
  devices: ToolSpec[],
): Promise<ToolSpec[]> {
  const remote = await remoteMcp.specs(settings.mcpServers, settings.outbound, input.conversation_id);
  return conversationTools(devices, settings.webhookTools, remote);
}

/** A direct call's tools: only the device's own; a direct call never reaches the orchestrator's built-ins. */
export async function deviceTools(env: Env, agentId: string): Promise<ToolSpec[]> {
  return toolSpecsFromSkills(await hubFor(env, agentId).getSkills(agentId));
}

/**
 * The remembered approval decisions, read only when a tool may ask for approval, from the
 * isolate's trusted copy of the rules (docs/architecture.md#trusted-copies).
 */
export async function approvalRulesFor(
  env: Env,
  config: LoopConfig,
  tools: ToolSpec[],
  agentId: string,
  ownerId: string | null,
  /** a fleet's devices: the rules of each (approval-rules.ts matches each call by its device) */
  fleet?: string[],
): Promise<{ approval_rules?: ApprovalRuleMatch[] }> {
  if (!mayNeedApproval(config, tools)) return {};
  // One after another: the first fills this isolate's copy, the others read it.
  const byId = new Map<string, ApprovalRuleMatch>();
  for (const id of fleet ?? [agentId]) for (const r of await rulesInForceFor(env, id, ownerId)) byId.set(r.rule_id, r);
  return { approval_rules: [...byId.values()] };
}

/** The context settings follow the deployment's vars, so a conversation of months sees a new model's window. */
export function contextConfig(loop: Partial<LoopConfig>): Partial<LoopConfig> {
  const { context_tokens, compact_at, keep_recent_turns } = loop;
  const context = { context_tokens, compact_at, keep_recent_turns };
  return Object.fromEntries(Object.entries(context).filter(([, v]) => v !== undefined)) as Partial<LoopConfig>;
}

/**
 * The tools a message's run offers the model: the device's, then the orchestrator's (built-ins,
 * `question`, the deployment's webhook tools, the remote MCP servers' tools). A device tool wins a
 * name clash.
 */
function conversationTools(
  deviceTools: ToolSpec[],
  webhookTools: WebhookTool[],
  remoteMcpTools: ToolSpec[] = [],
): ToolSpec[] {
  const taken = new Set(deviceTools.map((t) => t.name));
  return [
    ...deviceTools,
    ...[...builtinToolSpecs(BUILTINS), questionToolSpec, ...webhookToolSpecs(webhookTools), ...remoteMcpTools].filter(
      (t) => !taken.has(t.name) && taken.add(t.name),
    ),
  ];
}

/**
 * A message for another device than the conversation's: refused, unless its pool rebinds it
 * (the pool's device went away) and no run is going. `null` means it may go ahead.
 */
export function agentChangeRefusal(
  state: { agent_id: string; run: unknown },
  input: { conversation_id: string; agent_id: string; rebind?: boolean },
): { ok: false; status: 409; error: string } | null {
  if (state.agent_id === input.agent_id) return null;
  const owner = state.agent_id;
  if (!input.rebind)
    return { ok: false, status: 409, error: `conversation '${input.conversation_id}' belongs to agent '${owner}'` };
  if (state.run)
    return {
      ok: false,
      status: 409,
      error: `conversation '${input.conversation_id}' is still running on agent '${owner}'`,
    };
  return null;
}

type NeverConnected = { ok: false; status: 409; error: string };

/**
 * A message for one device that was given a token (paired, or `tokens create`) but has never
 * connected: its tools are unknown, so a run could only fail its calls as "not found". Refused
 * instead, saying what to do on the device. Devices that were online once keep their tools while
 * offline and take the message (its calls wait for them); ids nobody issued a token for run as
 * before. The hub tells it with the device's skills (getIntake), so a message costs it one call.
 */
function neverConnectedRefusal(agentId: string): NeverConnected {
  return {
    ok: false,
    status: 409,
    error:
      `${agentId} was paired but has never connected; start it on the device ` +
      "(`sudo systemctl start edgeloop-agent` after the install script, or `edgeloop-agent --config <its settings file>`), " +
      "and `edgeloop-agent doctor` there says what stops it",
  };
}

/**
 * The event a new message makes. Its images are stored here, before the step that references
 * them is written (docs/architecture.md, "Images are stored apart").
 */
export function userMessageEvent(
  input: PostMessageInput,
  tools: ToolSpec[],
  rules: { approval_rules?: ApprovalRuleMatch[] },
  loop: Partial<LoopConfig>,
  images: ImageStore,
): Extract<LoopEvent, { type: "user_message" }> {
  return {
    type: "user_message",
    message_id: input.message_id,
    text: input.text,
    tools,
    config: { ...contextConfig(loop), ...(input.options ?? {}) },
    ...rules,
    ...(input.schedule_id ? { schedule_id: input.schedule_id } : {}),
    ...(input.images ? { images: storeInputImages(input.images, images, input.conversation_id) } : {}),
  };
}
