import { describe, expect, it } from "vitest";
import { parseBenchFlags } from "../../../bench/lib/bench-flags.js";
import { parseSoakFlags } from "../../../bench/lib/soak-flags.js";

const IDS = ["step_overhead", "fleet_load"];

describe("npm run bench's flags", () => {
  it("defaults to the full run of every scenario", () => {
    expect(parseBenchFlags([], IDS)).toEqual({
      kind: "run",
      flags: { quick: false, out: undefined, only: undefined, inspector: false },
    });
  });

  it("reads every flag, in both spellings of a value", () => {
    expect(
      parseBenchFlags(["--quick", "--out", "/tmp/x", "--only=fleet_load,step_overhead", "--inspector"], IDS),
    ).toEqual({
      kind: "run",
      flags: { quick: true, out: "/tmp/x", only: ["fleet_load", "step_overhead"], inspector: true },
    });
  });

  it("prints usage naming every flag and its default for --help", () => {
    const outcome = parseBenchFlags(["--help"], IDS);
    expect(outcome.kind).toBe("help");
    const text = outcome.kind === "help" ? outcome.text : "";
    for (const flag of ["--quick", "--out DIR", "--only ID,ID", "--inspector", "--help"]) expect(text).toContain(flag);
    expect(text).toContain("default");
    expect(text).toContain("fleet_load");
  });

  it("refuses an unknown flag, naming it", () => {
    const outcome = parseBenchFlags(["--quik"], IDS);
    expect(outcome.kind).toBe("error");
    expect(outcome.kind === "error" && outcome.message).toContain("--quik");
  });

  it("refuses a flag without its value and an unknown scenario", () => {
    const missing = parseBenchFlags(["--out"], IDS);
    expect(missing.kind === "error" && missing.message).toContain("--out");
    const unknown = parseBenchFlags(["--only", "fleet_load,nope"], IDS);
    expect(unknown.kind === "error" && unknown.message).toContain("unknown scenario 'nope'");
  });

  it("refuses positional arguments", () => {
    expect(parseBenchFlags(["quick"], IDS).kind).toBe("error");
  });
});

describe("npm run soak's flags", () => {
  it("defaults to ten minutes, a random seed and chaos", () => {
    expect(parseSoakFlags([])).toEqual({
      kind: "run",
      flags: { quick: false, minutes: 10, seed: undefined, out: undefined, keep: false, noChaos: false },
    });
    expect(parseSoakFlags(["--quick"]).kind === "run" && parseSoakFlags(["--quick"])).toMatchObject({
      flags: { quick: true, minutes: 1 },
    });
  });

  it("reads numbers as numbers", () => {
    expect(parseSoakFlags(["--minutes", "2.5", "--seed=42", "--keep", "--no-chaos", "--out", "o"])).toEqual({
      kind: "run",
      flags: { quick: false, minutes: 2.5, seed: 42, out: "o", keep: true, noChaos: true },
    });
  });

  it("prints usage for --help instead of starting a soak", () => {
    const outcome = parseSoakFlags(["--help"]);
    expect(outcome.kind).toBe("help");
    const text = outcome.kind === "help" ? outcome.text : "";
    for (const flag of ["--minutes N", "--quick", "--seed S", "--out DIR", "--keep", "--no-chaos"])
      expect(text).toContain(flag);
  });

  it("refuses bad values, naming the flag", () => {
    for (const argv of [
      ["--minutes", "ten"],
      ["--minutes", "0"],
      ["--seed", "1.5"],
      ["--seed", "-3"],
    ]) {
      const outcome = parseSoakFlags(argv);
      expect(outcome.kind, argv.join(" ")).toBe("error");
      expect(outcome.kind === "error" && outcome.message, argv.join(" ")).toContain(argv[0]);
    }
  });

  it("refuses an unknown flag", () => {
    const outcome = parseSoakFlags(["--minuets", "3"]);
    expect(outcome.kind === "error" && outcome.message).toContain("--minuets");
  });
});
