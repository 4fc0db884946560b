import { Identifier } from "@edgeloop/protocol/ids";
import { z } from "zod";
import { Decision } from "../api-schemas.js";
import { type Command, parseInput, positionals, printJson } from "../command.js";
import { EXIT, usageError } from "../exit-codes.js";

const Ids = z.object({ conversation: Identifier, call: z.string().min(1).max(200) });
const Reason = z.object({ reason: z.string().min(1).max(2000).optional() });
const Remember = z.object({
  always: z.boolean().optional(),
  pattern: z.string().min(1).max(500).optional(),
  "expires-in": z.coerce.number().int().positive().optional(),
});

/** `approve` / `deny` a call waiting for a person (TOOL_POLICIES `requires_approval`). */
export const decideCommand: Command = {
  names: ["approve", "deny"],
  synopsis:
    "approve|deny <conversation_id> <tool_call_id> [--reason text] [--always [--pattern <regex>] [--expires-in <seconds>]] [--json]",
  summary: "let a call that waits for approval run, or block it; --always remembers it as a rule",
  options: {
    reason: { type: "string" },
    always: { type: "boolean" },
    pattern: { type: "string" },
    "expires-in": { type: "string" },
  },
  async run({ name, client, json, values, positionals: args }) {
    const approve = name === "approve";
    const [conversation, call] = positionals(args, ["conversation_id", "tool_call_id"], this.synopsis);
    const ids = parseInput(Ids, { conversation, call }, this.synopsis);
    const { reason } = parseInput(Reason, { reason: values.reason }, this.synopsis);
    const remember = parseInput(
      Remember,
      { always: values.always, pattern: values.pattern, "expires-in": values["expires-in"] },
      this.synopsis,
    );
    if (!remember.always && (remember.pattern || remember["expires-in"]))
      throw usageError(`--pattern and --expires-in need --always\nusage: edgeloop ${this.synopsis}`);
    const scope = remember.always ? { scope: approve ? "always" : "deny_always" } : {};
    const path = `/v1/conversations/${encodeURIComponent(ids.conversation)}/approvals/${encodeURIComponent(ids.call)}`;
    const res = await client.json(Decision, path, {
      method: "POST",
      auth: "api",
      body: {
        approve,
        ...(reason ? { reason } : {}),
        ...scope,
        ...(remember.pattern ? { pattern: remember.pattern } : {}),
        ...(remember["expires-in"] ? { expires_in_seconds: remember["expires-in"] } : {}),
      },
    });
    if (json) printJson(res);
    else {
      console.log(`${approve ? "Approved" : "Denied"} ${ids.call} in ${ids.conversation}.`);
      const rule = (res as { rule?: { rule_id?: string } }).rule;
      if (rule?.rule_id) console.log(`Remembered as ${rule.rule_id} (edgeloop rules list).`);
    }
    return EXIT.ok;
  },
};

/** `answer` a `question` the model, or a remote MCP server during a call, asked the user. */
export const answerCommand: Command = {
  names: ["answer"],
  synopsis: "answer <conversation_id> <tool_call_id> <text>|--decline|--cancel [--json]",
  summary: "answer a question the model or an MCP server asked (an MCP server's may be declined)",
  options: { decline: { type: "boolean" }, cancel: { type: "boolean" } },
  async run({ client, json, values, positionals: args }) {
    const action = values.decline ? "decline" : values.cancel ? "cancel" : null;
    if (values.decline && values.cancel)
      throw usageError(`--decline or --cancel, not both\nusage: edgeloop ${this.synopsis}`);
    const names = action ? ["conversation_id", "tool_call_id"] : ["conversation_id", "tool_call_id", "text"];
    const [conversation, call, text] = positionals(args, names, this.synopsis);
    const ids = parseInput(Ids, { conversation, call }, this.synopsis);
    const body = action
      ? { action }
      : parseInput(z.object({ answer: z.string().min(1).max(32_000) }), { answer: text }, this.synopsis);
    const path = `/v1/conversations/${encodeURIComponent(ids.conversation)}/answers/${encodeURIComponent(ids.call)}`;
    const res = await client.json(Decision, path, { method: "POST", auth: "api", body });
    if (json) printJson(res);
    else
      console.log(
        `${action === "decline" ? "Declined" : action === "cancel" ? "Dismissed" : "Answered"} ${ids.call} in ${ids.conversation}.`,
      );
    return EXIT.ok;
  },
};
