import { describe, expect, it } from "vitest";
import { breakdown, type CpuProfile, OTHER, RUNTIME } from "../../../bench/lib/profile-breakdown.js";

/** A profile from stacks (outermost first) and the milliseconds sampled in each. */
function profileOf(stacks: [string[], number][]): CpuProfile {
  const nodes: CpuProfile["nodes"] = [
    { id: 1, callFrame: { functionName: "(root)", url: "", lineNumber: 0 }, children: [] },
  ];
  const samples: number[] = [];
  const timeDeltas: number[] = [];
  for (const [names, ms] of stacks) {
    let parent = nodes[0]!;
    for (const functionName of names) {
      const id = nodes.length + 1;
      const node = { id, callFrame: { functionName, url: "index.js", lineNumber: 1 }, children: [] as number[] };
      nodes.push(node);
      parent.children!.push(id);
      parent = node;
    }
    samples.push(parent.id);
    timeDeltas.push(ms * 1000);
  }
  return { nodes, samples, timeDeltas };
}

const part = (b: ReturnType<typeof breakdown>, name: string) => b.parts.find((p) => p.part.startsWith(name));

describe("where a tool call's profiled time goes", () => {
  it("gives a sample to the innermost function that names a part: the commit inside a model call is the conversation's", () => {
    const b = breakdown(
      profileOf([
        [["performModelCall", "readStream", "iterSSEChunks"], 3],
        [["performModelCall", "(anonymous)", "apply", "commitStep", "exec"], 2],
      ]),
    );
    expect(part(b, "model call")?.ms).toBe(3);
    expect(part(b, "conversation")).toMatchObject({ ms: 2, sqlite_ms: 2 });
  });

  it("counts a frame's parse and send as socket frames only inside the hub", () => {
    const b = breakdown(
      profileOf([
        [["webSocketMessage", "parseDeviceFrame", "safeParse"], 1],
        [["dispatchBatch", "send", "send"], 1],
        [["webSocketMessage", "onResult", "exec"], 4],
        [["performOne", "send"], 5],
      ]),
    );
    expect(part(b, "socket frames")?.ms).toBe(2);
    expect(part(b, "hub")).toMatchObject({ ms: 4, sqlite_ms: 4 });
    expect(part(b, "conversation")?.ms).toBe(5);
  });

  it("tells the metrics shard's record from the hub's audit record by where the stack starts", () => {
    const b = breakdown(
      profileOf([
        [["record", "exec"], 1],
        [["onResult", "complete", "record", "insert", "exec"], 2],
      ]),
    );
    expect(part(b, "metrics")?.ms).toBe(1);
    expect(part(b, "hub")?.ms).toBe(2);
  });

  it("keeps idle time out of the parts, and names what it cannot place", () => {
    const b = breakdown(
      profileOf([
        [["(idle)"], 10],
        [["(program)"], 2],
        [["(garbage collector)"], 1],
        [["somethingElse"], 3],
        [["acceptMessage", "admitAgent"], 4],
      ]),
    );
    expect(b).toMatchObject({ total_ms: 20, idle_ms: 10 });
    expect(part(b, RUNTIME)?.ms).toBe(3);
    expect(part(b, OTHER)?.ms).toBe(3);
    expect(part(b, "front door")?.ms).toBe(4);
  });
});
