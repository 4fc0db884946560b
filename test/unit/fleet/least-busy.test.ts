import { describe, expect, it } from "vitest";
import { leastBusy } from "../../../durable-objects/registry/least-busy.js";

const c = (agent_id: string, online: boolean, in_flight: number) => ({ agent_id, online, in_flight });

describe("routing a fleet call", () => {
  it("goes to the online device with the fewest calls in flight", () => {
    expect(leastBusy("r1", [c("a", true, 3), c("b", true, 1), c("c", true, 2)])).toBe("b");
    expect(leastBusy("r1", [c("a", false, 0), c("b", true, 5)])).toBe("b");
  });

  it("is null when no device is online", () => {
    expect(leastBusy("r1", [c("a", false, 0), c("b", false, 0)])).toBeNull();
    expect(leastBusy("r1", [])).toBeNull();
  });

  it("spreads equally busy devices by the call's key, the same answer every time", () => {
    const devices = [c("a", true, 0), c("b", true, 0), c("c", true, 0)];
    const picks = new Set<string | null>();
    for (let i = 0; i < 30; i++) {
      const pick = leastBusy(`req-${i}`, devices);
      expect(leastBusy(`req-${i}`, [...devices].reverse())).toBe(pick);
      picks.add(pick);
    }
    expect(picks).toEqual(new Set(["a", "b", "c"]));
  });
});
