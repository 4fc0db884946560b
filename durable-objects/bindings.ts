/**
 * The Durable Object namespaces as wrangler.toml binds them. Stubs are made only in addresses.ts,
 * which types each one by the methods its object offers.
 */
export interface DurableObjectBindings {
  CONVERSATION: DurableObjectNamespace;
  DEVICE_HUB: DurableObjectNamespace;
  REGISTRY: DurableObjectNamespace;
  IDEMPOTENCY: DurableObjectNamespace;
  LIMITER: DurableObjectNamespace;
  /** the loop metrics and the conversation index, sharded by conversation id */
  METRICS_SHARD: DurableObjectNamespace;
  /** how many shards hold the loop metrics and the conversation index (default 8) */
  METRICS_SHARDS?: string;
  /** the deployment's control plane: keys, approval rules, chat access, pairing, refusal counts (one object) */
  DEPLOYMENT: DurableObjectNamespace;
  /** the deployment's schedules (one object) */
  SCHEDULER: DurableObjectNamespace;
  /** the fleet's MCP server sessions (`POST /mcp`), one object per Mcp-Session-Id */
  MCP_SESSION: DurableObjectNamespace;
  /** one object per chat thread of a channel (Telegram chat or topic, Slack thread, …) */
  CHAT_THREAD: DurableObjectNamespace;
}
