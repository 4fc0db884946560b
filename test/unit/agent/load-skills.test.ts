import { CATEGORY_TIMEOUTS, SkillManifest } from "@edgeloop/protocol";
import { describe, expect, it } from "vitest";
import { loadSkills } from "../../../device-agent/src/skills/load-skills.js";
import { BASIC, BROKEN, FIXTURES, OTHER } from "./helpers.js";

const opts = { capabilities: null, sandboxing: "auto" as const, bwrapUsable: true, toolTimeoutCeilingMs: null };

describe("loadSkills", () => {
  it("reports a bad skill.toml with its file and still loads the other skills", () => {
    const loaded = loadSkills([BROKEN, BASIC, OTHER], opts);
    expect(loaded.errors).toContainEqual(
      expect.objectContaining({ file: `${BROKEN}/skill.toml`, reason: expect.stringContaining("invalid TOML") }),
    );
    expect(loaded.skills.map((s) => s.name)).toEqual(["fixture-basic", "fixture-other"]);
    expect(loaded.tools.has("hello")).toBe(true);
    expect(loaded.tools.has("echo")).toBe(true);
  });

  it("reports a bad tool entry with file, tool and reason; its siblings load", () => {
    const loaded = loadSkills([BASIC], opts);
    const bad = loaded.errors.find((e) => e.tool === "bad name");
    expect(bad).toMatchObject({ file: `${BASIC}/skill.toml`, tool: "bad name" });
    expect(bad!.reason).toMatch(/name/);
    expect(loaded.tools.has("echo")).toBe(true);
  });

  it("a folder without skill.toml is searched one level down", () => {
    const loaded = loadSkills([FIXTURES], opts);
    expect(loaded.skills.map((s) => s.name).sort()).toEqual(["fixture-basic", "fixture-other"]);
    expect(loaded.errors.some((e) => e.file.includes("broken"))).toBe(true);
  });

  it("resolves category default timeouts and validates manifests against the protocol", () => {
    const loaded = loadSkills([BASIC], opts);
    const echo = loaded.tools.get("echo")!.manifest;
    expect(echo.timeout_ms).toBe(CATEGORY_TIMEOUTS.file.timeout_ms);
    expect(echo.max_timeout_ms).toBe(CATEGORY_TIMEOUTS.file.max_timeout_ms);
    expect(loaded.tools.get("big")!.manifest.category).toBe("other");
    for (const skill of loaded.skills) expect(SkillManifest.safeParse(skill).success).toBe(true);
  });

  it("keeps agent-only fields (absolute binary path, output) out of the manifest", () => {
    const loaded = loadSkills([BASIC], opts);
    const content = loaded.tools.get("content")!;
    expect(content.output).toBe("content");
    expect(content.binaryPath).toBe(`${BASIC}/bin/content`);
    expect(content.manifest.binary).toBe("bin/content");
    expect(JSON.stringify(loaded.skills)).not.toContain('"output"');
    expect(JSON.stringify(loaded.skills)).not.toContain(BASIC);
  });

  it("filters by capabilities: a tool needs ALL of its permissions", () => {
    const loaded = loadSkills([BASIC], { ...opts, capabilities: ["shell"] });
    expect(loaded.tools.has("shell")).toBe(true);
    expect(loaded.tools.has("net_shell")).toBe(false); // shell + network
    expect(loaded.tools.has("gpio")).toBe(false);
    expect(loaded.tools.has("echo")).toBe(true); // no permissions needed
    expect(loaded.filtered).toContainEqual(
      expect.objectContaining({ tool: "net_shell", kind: "capability", reason: expect.stringContaining("'network'") }),
    );
    expect(loaded.capabilities).toEqual(["shell"]);
  });

  it("unrestricted agents advertise every permission their tools use", () => {
    const loaded = loadSkills([BASIC], opts);
    expect(loaded.capabilities).toEqual(["gpio", "network", "shell"]);
    expect(loaded.tools.has("gpio")).toBe(true);
  });

  it("filters tools whose `requires` are not on PATH and tools whose binary is missing", () => {
    const loaded = loadSkills([BASIC], opts);
    expect(loaded.filtered).toContainEqual(
      expect.objectContaining({
        skill: "fixture-basic",
        tool: "needs_missing",
        kind: "requires",
        reason: expect.stringContaining("edgeloop-test-definitely-not-installed"),
      }),
    );
    expect(loaded.filtered).toContainEqual(
      expect.objectContaining({
        tool: "no_binary",
        kind: "binary",
        reason: expect.stringContaining("binary not found"),
      }),
    );
    expect(loaded.tools.has("needs_missing")).toBe(false);
    expect(loaded.tools.has("shell")).toBe(true); // requires bash, which is installed
  });

  it("sandboxing = required drops bubblewrap tools when bwrap is unusable", () => {
    const loaded = loadSkills([BASIC], { ...opts, sandboxing: "required", bwrapUsable: false });
    expect(loaded.tools.has("shell")).toBe(false);
    expect(loaded.filtered).toContainEqual(expect.objectContaining({ tool: "shell", kind: "sandbox" }));
  });

  it("applies the device-wide timeout ceiling to advertised timeouts", () => {
    const loaded = loadSkills([BASIC], { ...opts, toolTimeoutCeilingMs: 20_000 });
    const block = loaded.tools.get("block")!.manifest; // exec: 30000 / 300000
    expect(block.max_timeout_ms).toBe(20_000);
    expect(block.timeout_ms).toBe(20_000);
  });
});
