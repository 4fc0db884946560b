// Both skill.toml files must load as the device agent will load them, and agree with the binaries.

import { accessSync, constants, readFileSync } from "node:fs";
import path from "node:path";
import { CATEGORY_TIMEOUTS, ParametersSchema, ToolCategory, ToolManifest } from "@edgeloop/protocol/skill-manifest";
import { parse } from "smol-toml";
import { afterAll, describe, expect, it } from "vitest";
import { removeTempDirs, runTool, SKILLS_DIR, tempDir } from "./skill-runner.js";

type RawTool = Record<string, unknown> & { name: string; binary: string; parameters?: unknown };
const SKILLS = ["desktop-tools", "pi-tools"] as const;

afterAll(removeTempDirs);

function loadSkill(skill: string): { skill: Record<string, unknown>; tools: RawTool[] } {
  return parse(readFileSync(path.join(SKILLS_DIR, skill, "skill.toml"), "utf8")) as never;
}

describe.each(SKILLS)("%s/skill.toml", (skill) => {
  const manifest = loadSkill(skill);

  it("names the skill and has tools", () => {
    expect(manifest.skill.name).toBe(skill);
    expect(manifest.tools.length).toBeGreaterThan(0);
  });

  it("has unique tool names", () => {
    const names = manifest.tools.map((t) => t.name);
    expect(new Set(names).size).toBe(names.length);
  });

  it.each(manifest.tools.map((t) => [t.name, t] as const))(
    "%s is a valid ToolManifest with an executable binary",
    (_name, tool) => {
      const { output, ...rest } = tool;
      expect(output === undefined || output === "text" || output === "content").toBe(true);
      const category = ToolCategory.parse(rest.category ?? "other");
      const withDefaults = { ...CATEGORY_TIMEOUTS[category], ...rest, category };
      const parsed = ToolManifest.parse(withDefaults);
      expect(parsed.timeout_ms).toBeLessThanOrEqual(parsed.max_timeout_ms);

      const params = ParametersSchema.parse(rest.parameters ?? {});
      for (const required of params.required) expect(Object.keys(params.properties)).toContain(required);

      const binary = path.join(SKILLS_DIR, skill, tool.binary);
      expect(() => accessSync(binary, constants.X_OK)).not.toThrow();
      const source = readFileSync(binary, "utf8");
      expect(source.startsWith("#!/usr/bin/env node\n// @ts-check\n")).toBe(true);
    },
  );

  it("has unique names across both bundled skills", () => {
    const all = SKILLS.flatMap((s) => loadSkill(s).tools.map((t) => t.name));
    expect(new Set(all).size).toBe(all.length);
  });

  // Guards against the schema and the binary drifting apart: the binary must ask for the same
  // first required parameter the manifest declares.
  it("binaries reject a call missing the manifest's required parameters", async () => {
    const workspace = tempDir("manifest");
    for (const tool of manifest.tools) {
      const params = ParametersSchema.parse(tool.parameters ?? {});
      const first = params.required[0];
      if (!first) continue;
      const run = await runTool(skill, path.basename(tool.binary), {}, { workspace });
      expect({ tool: tool.name, code: run.code }).toEqual({ tool: tool.name, code: 64 });
      expect(run.stderr).toContain(`"${first}"`);
    }
  });
});

describe("bundled tools", () => {
  it("desktop-tools has the file, exec, git and web tools", () => {
    const names = loadSkill("desktop-tools")
      .tools.map((t) => t.name)
      .sort();
    expect(names).toEqual(
      [
        "apply_patch",
        "bash",
        "browser",
        "codesearch",
        "edit",
        "git_branch",
        "git_commit",
        "git_diff",
        "git_log",
        "git_status",
        "glob",
        "grep",
        "image",
        "read",
        "websearch",
        "webfetch",
        "write",
      ].sort(),
    );
  });

  it("gives each tool the permission its kind needs (file_read, file_write, shell, network, git, gpio)", () => {
    const byName = new Map(SKILLS.flatMap((s) => loadSkill(s).tools.map((t) => [t.name, t.permissions] as const)));
    expect(byName.get("read")).toEqual(["file_read"]);
    expect(byName.get("edit")).toEqual(["file_write"]);
    expect(byName.get("bash")).toEqual(["shell"]);
    expect(byName.get("webfetch")).toEqual(["network"]);
    expect(byName.get("git_log")).toEqual(["git"]);
    expect(byName.get("gpio_write")).toEqual(["gpio"]);
  });
});
