import { app } from "./app.js";

export { ChatThreadDO } from "../durable-objects/channels/thread/chat-thread-do.js";
export { ConversationDO } from "../durable-objects/conversation/conversation-do.js";
export { DeploymentDO } from "../durable-objects/deployment/deployment-do.js";
export { DeviceHubDO } from "../durable-objects/device-hub/device-hub-do.js";
export { IdempotencyDO } from "../durable-objects/front-door/idempotency-do.js";
export { LimiterDO } from "../durable-objects/front-door/limiter-do.js";
export { McpSessionDO } from "../durable-objects/mcp-session/mcp-session-do.js";
export { MetricsShardDO } from "../durable-objects/metrics/metrics-shard-do.js";
export { RegistryDO } from "../durable-objects/registry/registry-do.js";
export { SchedulerDO } from "../durable-objects/scheduler/scheduler-do.js";

export default app;
