/**
 * The soak's memory verdict must be able to fail: RSS that grows from the first window of the load
 * to the last by more than the tolerance is a failed check; samples taken while the runtime was
 * down are left out, so a restart does not pass for a drop; the warm-up is not a leak, and a load
 * too short to judge is reported as not judged rather than passed on noise.
 */
import { describe, expect, it } from "vitest";
import { type MemorySample, memoryCheck, memoryVerdict } from "../../../bench/soak/memory-sampler.js";

function samples(runtime: (t: number) => number, agent: (t: number) => number): MemorySample[] {
  return Array.from({ length: 61 }, (_, i) => {
    const t = i * 5;
    return {
      t_s: t,
      runtime_mb: runtime(t),
      workerd_mb: runtime(t) / 2,
      agents_mb: agent(t) * 20,
      agent_max_mb: agent(t) + 5,
      agents_up: 20,
      bridge_mb: 100,
      broker_mb: 8,
    };
  });
}

describe("the soak's memory check", () => {
  it("passes memory that stays level, even with the runtime down for a while", () => {
    const v = memoryVerdict(
      samples(
        (t) => (t > 100 && t < 120 ? 0 : 700 + (t % 20)),
        () => 60,
      ),
      0,
      300,
      60,
      1.25,
    );
    expect(v).toMatchObject({ flat: true, agent_growth: 1 });
    expect(memoryCheck(v).count).toBe(0);
  });

  it("fails a runtime or agents whose memory grows with the work", () => {
    const v = memoryVerdict(
      samples(
        (t) => 600 + t * 2,
        (t) => 60 + t / 4,
      ),
      0,
      300,
      60,
      1.25,
    );
    expect(v.flat).toBe(false);
    const check = memoryCheck(v);
    expect(check).toMatchObject({ id: "memory_growth", bucket: "other", count: 2 });
    expect(check.examples[0]).toMatch(/^runtime /);
  });

  it("takes growth during the first window (the warm-up) for no leak", () => {
    const v = memoryVerdict(
      samples(
        (t) => (t < 60 ? 500 + t * 5 : 800),
        (t) => (t < 60 ? 40 + t / 2 : 70),
      ),
      0,
      300,
      60,
      1.25,
    );
    expect(v).toMatchObject({ judged: true, flat: true, runtime_growth: 1, agent_growth: 1 });
    expect(memoryCheck(v).count).toBe(0);
  });

  it("does not judge a load shorter than five windows (a quick run), and says so", () => {
    const v = memoryVerdict(
      samples(
        (t) => 600 + t * 10,
        () => 60,
      ),
      0,
      80,
      20,
      1.25,
    );
    expect(v).toMatchObject({ judged: false, flat: true });
    expect(v.runtime_growth).toBeGreaterThan(1.25);
    expect(memoryCheck(v)).toMatchObject({ count: 0, what: expect.stringContaining("not judged") });
  });
});
