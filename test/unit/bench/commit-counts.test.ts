import { describe, expect, it } from "vitest";
import {
  AMORTIZED_OVER,
  COMMIT_MINIMUM,
  commitKinds,
  commitsByWhat,
  commitTable,
  minimumAmortized,
} from "../../../bench/lib/commit-counts.js";

describe("commits per device round", () => {
  // A 1-round message and an 11-round one, as the cost scenario counts them.
  const one = { commitsByKind: { ConversationDO: 5, DeviceHubDO: 2, LimiterDO: 2 } };
  const many = { commitsByKind: { ConversationDO: 25, DeviceHubDO: 22, LimiterDO: 2 } };

  it("splits a message's commits into each round's and the message's own, by kind", () => {
    const c = commitKinds([one, many], 11);
    expect(c.per_round).toEqual({ ConversationDO: 2, DeviceHubDO: 2, LimiterDO: 0 });
    expect(c.per_message).toEqual({ ConversationDO: 3, DeviceHubDO: 0, LimiterDO: 2 });
    expect(c.amortized.LimiterDO).toBe(Math.round((2 / AMORTIZED_OVER) * 100) / 100);
    expect(c.total).toEqual({ per_round: 4, per_message: 5, amortized: Math.round((4 + 5 / 3) * 100) / 100 });
  });

  it("gives every kind of the minimum an invariant or says none", () => {
    for (const [kind, m] of Object.entries(COMMIT_MINIMUM)) expect(m.why.length, kind).toBeGreaterThan(20);
    // 4 a round (conversation 2, hub 2) and 2 a message, over 3 rounds.
    expect(minimumAmortized()).toBeCloseTo(4 + 2 / 3, 5);
  });

  it("tells commits apart by what they wrote", () => {
    const w = commitsByWhat(
      [
        { cost: { by_commit: { "ConversationDO: schema": 1, "ConversationDO: loop_kv+steps": 2 } } },
        { cost: { by_commit: { "ConversationDO: schema": 1, "ConversationDO: loop_kv+steps": 22 } } },
      ],
      11,
    );
    expect(w).toEqual({
      per_round: { "ConversationDO: loop_kv+steps": 2 },
      per_message: { "ConversationDO: schema": 1 },
    });
  });

  it("tabulates the counts beside the minimum", () => {
    const table = commitTable(commitKinds([one, many], 11));
    expect(table).toContain("| `ConversationDO` | 2 | 3 | 3 | 2.67 |");
    expect(table).toContain("| `MetricsShardDO` | 0 | 0 | 0 | 0 |");
    expect(table.split("\n").at(-1)).toBe("| all | 4 | 5 | 5.67 | 4.67 |");
  });
});
