import { DurableObject } from "cloudflare:workers";
import { canSee, type Principal } from "../../runtime/access.js";

/** What a session remembers: who opened it and when it was last used. */
export type McpSessionInfo = {
  client: { name: string; version: string };
  /** the principal (runtime/access.ts) whose token opened it; a scoped one's session is its alone */
  principal?: string;
  protocol_version: string;
  created_at: number;
  last_used_at: number;
};

/** A session nobody used for this long is forgotten (its next request gets 404, and the client starts over). */
export const MCP_SESSION_IDLE_MS = 24 * 60 * 60 * 1000;
/** `last_used_at` is written at most this often while a session is busy. */
const TOUCH_WRITE_MS = 60_000;

/**
 * One per `Mcp-Session-Id` of the fleet's MCP server (`POST /mcp`). The worker's isolates keep
 * nothing between requests, so the session lives here: opened by `initialize`, checked by every
 * later request (unknown or closed → 404), closed by `DELETE /mcp` or by its alarm after a day
 * unused. The calls a session makes are conversations of their own (worker/mcp/device-call.ts);
 * the session only notes which conversation each tools/call request started, for its cancel.
 * A session opened with a scoped key answers only to that key: for any other it does not exist.
 */
export class McpSessionDO extends DurableObject<unknown> {
  private info: McpSessionInfo | null | undefined;

  async open(info: Omit<McpSessionInfo, "created_at" | "last_used_at">, now = Date.now()): Promise<void> {
    this.info = { ...info, created_at: now, last_used_at: now };
    await this.ctx.storage.put("session", this.info);
    await this.ctx.storage.setAlarm(now + MCP_SESSION_IDLE_MS);
  }

  /** The session if it is open and `by` may use it (and marks it used), or null. */
  async touch(by: Pick<Principal, "id" | "scoped">, now = Date.now()): Promise<McpSessionInfo | null> {
    const info = await this.load();
    if (!info || !canSee(by, info.principal ?? null)) return null;
    if (now - info.last_used_at >= TOUCH_WRITE_MS) {
      this.info = { ...info, last_used_at: now };
      await this.ctx.storage.put("session", this.info);
    }
    return this.info!;
  }

  /** The conversation a tools/call request started, so the request's `notifications/cancelled` can find it. */
  async noteCall(requestKey: string, conversationId: string): Promise<void> {
    if (await this.load()) await this.ctx.storage.put(`call:${requestKey}`, conversationId);
  }

  async callFor(requestKey: string): Promise<string | null> {
    return (await this.ctx.storage.get<string>(`call:${requestKey}`)) ?? null;
  }

  /** Closed by `by` (when it may use it), or by the alarm. */
  async close(by?: Pick<Principal, "id" | "scoped">): Promise<boolean> {
    const info = await this.load();
    if (by && info && !canSee(by, info.principal ?? null)) return false;
    const open = info !== null;
    this.info = null;
    await this.ctx.storage.deleteAll();
    await this.ctx.storage.deleteAlarm();
    return open;
  }

  override async alarm(): Promise<void> {
    const info = await this.load();
    if (!info) return;
    const idleUntil = info.last_used_at + MCP_SESSION_IDLE_MS;
    if (Date.now() >= idleUntil) await this.close();
    else await this.ctx.storage.setAlarm(idleUntil);
  }

  private async load(): Promise<McpSessionInfo | null> {
    if (this.info === undefined) this.info = (await this.ctx.storage.get<McpSessionInfo>("session")) ?? null;
    return this.info;
  }
}
