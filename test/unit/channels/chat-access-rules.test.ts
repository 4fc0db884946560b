import type { ChannelGrant } from "@edgeloop/protocol/channels";
import { describe, expect, it } from "vitest";
import { ToldStrangers } from "../../../durable-objects/channels/thread/told-strangers.js";
import { grantIn, grantsByKey, RESEND_CODE_MS } from "../../../durable-objects/deployment/chat-access-rules.js";

const grant = (subject: string, over: Partial<ChannelGrant> = {}): ChannelGrant => ({
  platform: "telegram",
  subject,
  name: subject,
  agents: ["pi-1"],
  pools: [],
  scopes: ["messages"],
  target: null,
  created_at: 0,
  ...over,
});

describe("grantIn: the grant that answers for a chat user", () => {
  const all = grantsByKey([
    grant("user:7", { name: "own" }),
    grant("chat:-100", { name: "group" }),
    grant("user:8", { platform: "slack" }),
  ]);
  it("is the user's own grant before the group chat's, on the same platform only", () => {
    expect(grantIn(all, "telegram", "7", "-100")?.name).toBe("own");
    expect(grantIn(all, "telegram", "9", "-100")?.name).toBe("group");
    expect(grantIn(all, "telegram", "8", "42")).toBeNull();
    expect(grantIn(all, "slack", "8", "42")?.subject).toBe("user:8");
  });
});

describe("ToldStrangers: a thread's memory of the unknown users already given a code", () => {
  it("remembers a user in one thread for the deployment object's resend interval", () => {
    const told = new ToldStrangers();
    expect(told.recently("telegram:1", "666", 0)).toBe(false);
    told.remember("telegram:1", "666", 0);
    expect(told.recently("telegram:1", "666", RESEND_CODE_MS - 1)).toBe(true);
    expect(told.recently("telegram:2", "666", 1)).toBe(false);
    expect(told.recently("telegram:1", "667", 1)).toBe(false);
    expect(told.recently("telegram:1", "666", RESEND_CODE_MS)).toBe(false);
  });
});
