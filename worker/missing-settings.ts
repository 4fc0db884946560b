import { modelSettings } from "../durable-objects/conversation/settings/model-settings.js";
import type { WorkerConfig } from "../durable-objects/front-door/front-door-config.js";
import { problemResponse } from "../runtime/problem.js";
import type { Env } from "./env.js";

/**
 * What a deployment lacks, said once for every route that refuses because of it (the 503s of
 * middleware/authorize.ts, middleware/message-sender.ts and the dashboard): each missing setting,
 * what it is for, and the exact command that sets it. A worker deployed with bare `wrangler deploy`
 * has none of its secrets, and "Not configured" alone left people guessing which ones and how.
 */

/** One setting the deployment lacks. `set_with` is a command to run from a clone of edgeloop. */
export type MissingSetting = { setting: string; needed_for: string; set_with: string };

/** What a refused route needed: one setting, or either of the two tokens. */
export type Requirement = "ADMIN_TOKEN" | "API_TOKEN or ADMIN_TOKEN" | "WEBHOOK_SECRETS";

export const DEPLOY_COMMAND = "npx edgeloop deploy";

/** Wrangler's commands must name the environment the worker was deployed from; only `workers-ai` binds AI. */
const envFlag = (env: Env) => (env.AI ? " --env workers-ai" : "");
const secretPut = (env: Env, name: string) => `npx wrangler secret put ${name}${envFlag(env)}`;

function missingModel(env: Env): MissingSetting | null {
  const model = modelSettings(env);
  if (!model.ok || model.value.unavailable === null) return null;
  const needed_for = `the model: ${model.value.unavailable}`;
  switch (model.value.provider) {
    case "anthropic":
      return { setting: "ANTHROPIC_API_KEY", needed_for, set_with: secretPut(env, "ANTHROPIC_API_KEY") };
    case "openai":
      return { setting: "OPENAI_BASE_URL", needed_for, set_with: secretPut(env, "OPENAI_BASE_URL") };
    default:
      return {
        setting: "a model",
        needed_for: "every conversation: no model is configured (docs/providers.md)",
        set_with:
          `${DEPLOY_COMMAND} --provider workers-ai (no key), or ${secretPut(env, "ANTHROPIC_API_KEY")}, ` +
          `or ${secretPut(env, "OPENAI_BASE_URL")} and OPENAI_API_KEY`,
      };
  }
}

/**
 * Every setting this deployment lacks that a first deploy must give it: the two tokens and a
 * model, plus WEBHOOK_SECRETS when the refused request was a signed webhook (it is optional
 * otherwise).
 */
export function missingSettings(config: WorkerConfig, env: Env, requirement?: Requirement): MissingSetting[] {
  const missing: MissingSetting[] = [];
  if (!config.ADMIN_TOKEN)
    missing.push({
      setting: "ADMIN_TOKEN",
      needed_for: "the dashboard, device status and the admin routes",
      set_with: secretPut(env, "ADMIN_TOKEN"),
    });
  if (!config.API_TOKEN)
    missing.push({
      setting: "API_TOKEN",
      needed_for: "sending messages and reading conversations (the admin token also works there)",
      set_with: secretPut(env, "API_TOKEN"),
    });
  if (requirement === "WEBHOOK_SECRETS" && config.WEBHOOK_SECRETS.length === 0)
    missing.push({
      setting: "WEBHOOK_SECRETS",
      needed_for: "signed webhooks (format: docs/configuration.md)",
      set_with: secretPut(env, "WEBHOOK_SECRETS"),
    });
  const model = missingModel(env);
  if (model) missing.push(model);
  return missing;
}

/** The sentence a 503 and the setup page share: what is missing, what this request needs, how to set it. */
export function notConfiguredDetail(requirement: Requirement, missing: MissingSetting[]): string {
  const commands = missing.map((m) => `${m.setting}: ${m.set_with}`).join("; ");
  const how =
    requirement === "WEBHOOK_SECRETS"
      ? "Set each as a secret"
      : `\`${DEPLOY_COMMAND}\`, run from a clone of edgeloop, sets the tokens; or set each as a secret`;
  return (
    `Not set on this worker: ${missing.map((m) => m.setting).join(", ")}. This request needs ${requirement}. ` +
    `${how} (docs/deploy.md): ${commands}.`
  );
}

/** 503 Not configured, as problem+json naming every missing setting (also as `missing`, for programs). */
export function notConfigured(config: WorkerConfig, env: Env, requirement: Requirement): Response {
  const missing = missingSettings(config, env, requirement);
  return problemResponse(503, "Not configured", notConfiguredDetail(requirement, missing), { missing });
}
