import { agentsList } from "./agents-list.js";
import { canvas } from "./canvas.js";
import { echo } from "./echo.js";
import { getCurrentTime } from "./get-current-time.js";
import { nodes } from "./nodes.js";
import { sessionStatus } from "./session-status.js";
import { sessionsHistory } from "./sessions-history.js";
import { sessionsList } from "./sessions-list.js";
import { sessionsSend } from "./sessions-send.js";
import { sessionsSpawn } from "./sessions-spawn.js";
import { skill } from "./skill.js";
import { task } from "./task.js";
import { todoread } from "./todoread.js";
import { todowrite } from "./todowrite.js";
import type { Builtin } from "./types.js";

export { CANVAS_KV_KEY, canvasPath, parseStoredCanvas, renderCanvas, type StoredCanvas } from "./canvas.js";
export { questionToolSpec } from "./question.js";
export { BUILTIN_DEFAULT_TIMEOUT_MS, BUILTIN_MAX_TIMEOUT_MS, builtinToolSpecs } from "./tool-specs.js";
export type { Builtin, BuiltinContext, BuiltinResult } from "./types.js";
export { webhookBuiltin } from "./webhook-builtin.js";
export {
  parseWebhookTools,
  runWebhookTool,
  type WebhookCallContext,
  type WebhookTool,
  webhookToolSpecs,
} from "./webhook-tools.js";

/** Every built-in the orchestrator offers (`question` is the core's own; see questionToolSpec). */
export const BUILTINS: Builtin[] = [
  getCurrentTime,
  echo,
  todowrite,
  todoread,
  task,
  skill,
  sessionsList,
  sessionsHistory,
  sessionsSend,
  sessionsSpawn,
  sessionStatus,
  agentsList,
  nodes,
  canvas,
];

const BY_NAME = new Map(BUILTINS.map((b) => [b.name, b]));

export function findBuiltin(name: string): Builtin | undefined {
  return BY_NAME.get(name);
}
