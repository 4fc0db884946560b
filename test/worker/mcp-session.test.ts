/** McpSessionDO: a session is open until DELETE or a day unused; cancels find their conversation through it. */
import { env, runDurableObjectAlarm } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { mcpSessionFor } from "../../durable-objects/addresses.js";
import { MCP_SESSION_IDLE_MS } from "../../durable-objects/mcp-session/mcp-session-do.js";

const info = {
  client: { name: "c", version: "1" },
  protocol_version: "2025-11-25",
  principal: "key:key_0000000000000001",
};
const owner = { id: "key:key_0000000000000001", scoped: true };
const otherKey = { id: "key:key_0000000000000002", scoped: true };
const apiToken = { id: "api", scoped: false };

describe("McpSessionDO", () => {
  it("is found until closed, by its own key only; closing twice says it was not open", async () => {
    const session = mcpSessionFor(env, crypto.randomUUID());
    expect(await session.touch(owner)).toBeNull();
    await session.open(info);
    expect(await session.touch(owner)).toMatchObject(info);
    // Another key's request finds no session; the unscoped API token sees every one.
    expect(await session.touch(otherKey)).toBeNull();
    expect(await session.close(otherKey)).toBe(false);
    expect(await session.touch(apiToken)).toMatchObject(info);
    await session.noteCall("7", "mcp_abc");
    expect(await session.callFor("7")).toBe("mcp_abc");
    expect(await session.close()).toBe(true);
    expect(await session.touch(owner)).toBeNull();
    expect(await session.callFor("7")).toBeNull();
    expect(await session.close()).toBe(false);
  });

  it("its alarm forgets a session unused for a day, and keeps one in use", async () => {
    const idle = mcpSessionFor(env, crypto.randomUUID());
    await idle.open(info, Date.now() - MCP_SESSION_IDLE_MS - 1000);
    // Its alarm was due in the past, so the runtime may have run it already: either way it is gone.
    await runDurableObjectAlarm(idle);
    expect(await idle.touch(owner)).toBeNull();

    const busy = mcpSessionFor(env, crypto.randomUUID());
    await busy.open(info);
    expect(await runDurableObjectAlarm(busy)).toBe(true);
    expect(await busy.touch(owner)).toMatchObject(info);
  });
});
