import { describe, expect, it } from "vitest";
import { NodeCommandOutput } from "../../../durable-objects/device-hub/wires/openclaw/node-command-output.js";
import { nodeSqlStorage } from "../../helpers/node-sql-storage.js";

describe("a command's progress text kept for its result", () => {
  it("joins the chunks in order and gives them once", () => {
    const output = new NodeCommandOutput(nodeSqlStorage());
    output.append("r1", "Hello, ");
    output.append("r2", "other");
    output.append("r1", "world");
    expect(output.take("r1")).toBe("Hello, world");
    expect(output.take("r1")).toBe("");
    expect(output.take("r2")).toBe("other");
  });

  it("keeps at most 200 000 characters, as the node does, from a first chunk or from several", () => {
    const output = new NodeCommandOutput(nodeSqlStorage());
    output.append("big", "a".repeat(200_001));
    expect(output.take("big")).toHaveLength(200_000);
    output.append("grown", "b".repeat(150_000));
    output.append("grown", "c".repeat(100_000));
    const grown = output.take("grown");
    expect(grown).toHaveLength(200_000);
    expect(grown.endsWith("c".repeat(50_000))).toBe(true);
  });

  it("forgets everything at a sign-in, when what the node ran has ended", () => {
    const output = new NodeCommandOutput(nodeSqlStorage());
    output.append("r1", "partial");
    output.clear();
    expect(output.take("r1")).toBe("");
  });
});
