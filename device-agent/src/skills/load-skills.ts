import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseValue } from "@edgeloop/protocol/parse";
import {
  CATEGORY_TIMEOUTS,
  MAX_WORKFLOW_CHARS,
  type SkillManifest,
  type ToolManifest,
} from "@edgeloop/protocol/skill-manifest";
import { parse as parseToml } from "smol-toml";
import type { SandboxMode } from "../config.js";
import { McpSection } from "../mcp/mcp-section.js";
import { checkExecutable, findOnPath } from "./find-executable.js";
import type { FilteredToolInfo, LoadedTool, McpDeclaration, SkillLoadError } from "./loaded-tool.js";
import { SkillFile, ToolEntry } from "./skill-toml.js";

export type LoadSkillsOptions = {
  /** null: not restricted (every permission the loaded tools use is granted) */
  capabilities: string[] | null;
  sandboxing: SandboxMode;
  bwrapUsable: boolean;
  toolTimeoutCeilingMs: number | null;
  pathEnv?: string;
};

export type LoadedSkills = {
  skills: SkillManifest[];
  filtered: FilteredToolInfo[];
  errors: SkillLoadError[];
  /** advertised tools by name, with the agent-only fields */
  tools: Map<string, LoadedTool>;
  /** what the agent advertises: the configured list, or the union of the tools' permissions */
  capabilities: string[];
  /** MCP servers to start; their tools join the skills once listed (mcp/mcp-skills.ts) */
  mcp: McpDeclaration[];
};

/** The name `filtered` entries use for a whole MCP server rather than one of its tools. */
export const MCP_SERVER_ENTRY = "(mcp server)";

/** A folder with a skill.toml is a skill; a folder without one is searched one level down. */
export function findSkillFiles(folders: string[]): { files: string[]; errors: SkillLoadError[] } {
  const files: string[] = [];
  const errors: SkillLoadError[] = [];
  for (const folder of folders) {
    const direct = join(folder, "skill.toml");
    if (existsSync(direct)) {
      files.push(direct);
      continue;
    }
    let nested: string[] = [];
    try {
      nested = readdirSync(folder, { withFileTypes: true })
        .filter((d) => d.isDirectory())
        .map((d) => join(folder, d.name, "skill.toml"))
        .filter((f) => existsSync(f))
        .sort();
    } catch {
      // fall through to the error below
    }
    if (nested.length === 0) errors.push({ file: direct, reason: "no skill.toml in this folder or its subfolders" });
    files.push(...nested);
  }
  return { files, errors };
}

type Candidate = { tool: LoadedTool; skillIndex: number };

export function loadSkills(folders: string[], opts: LoadSkillsOptions): LoadedSkills {
  const found = findSkillFiles(folders.map((f) => resolve(f)));
  const errors = [...found.errors];
  const filtered: FilteredToolInfo[] = [];
  const skills: SkillManifest[] = [];
  const candidates: Candidate[] = [];
  const mcpCandidates: McpDeclaration[] = [];
  const seenSkills = new Set<string>();

  for (const file of found.files) {
    const skillDir = resolve(file, "..");
    let raw: unknown;
    try {
      raw = parseToml(readFileSync(file, "utf8"));
    } catch (e) {
      errors.push({ file, reason: `invalid TOML: ${(e as Error).message.split("\n")[0]}` });
      continue;
    }
    const header = parseValue(SkillFile, raw);
    if (!header.ok) {
      errors.push({ file, reason: header.error });
      continue;
    }
    const { skill, tools, mcp } = header.value;
    if (seenSkills.has(skill.name)) {
      errors.push({ file, reason: `skill '${skill.name}' is already loaded from another folder` });
      continue;
    }
    seenSkills.add(skill.name);
    const skillIndex = skills.length;
    const workflow = readWorkflow(skillDir);
    skills.push({
      name: skill.name,
      version: skill.version,
      description: skill.description,
      ...(workflow ? { workflow } : {}),
      tools: [],
    });
    if (mcp !== undefined) {
      const declared = mcpDeclaration(mcp, skill.name, skillDir, opts);
      if ("reason" in declared) errors.push({ file, tool: MCP_SERVER_ENTRY, reason: declared.reason });
      else if (declared.sandboxProblem) filtered.push(declared.sandboxProblem);
      else mcpCandidates.push(declared.declaration);
    }

    tools.forEach((rawTool, i) => {
      const toolName =
        typeof (rawTool as { name?: unknown })?.name === "string" ? (rawTool as { name: string }).name : `#${i + 1}`;
      const entry = parseValue(ToolEntry, rawTool);
      if (!entry.ok) {
        errors.push({ file, tool: toolName, reason: entry.error });
        return;
      }
      const t = entry.value;
      const defaults = CATEGORY_TIMEOUTS[t.category];
      let maxTimeout = t.max_timeout_ms ?? defaults.max_timeout_ms;
      let timeout = t.timeout_ms ?? Math.min(defaults.timeout_ms, maxTimeout);
      if (timeout > maxTimeout) {
        errors.push({ file, tool: t.name, reason: `timeout_ms ${timeout} is above max_timeout_ms ${maxTimeout}` });
        return;
      }
      if (opts.toolTimeoutCeilingMs !== null) {
        maxTimeout = Math.min(maxTimeout, opts.toolTimeoutCeilingMs);
        timeout = Math.min(timeout, maxTimeout);
      }
      const manifest: ToolManifest = {
        name: t.name,
        description: t.description,
        binary: t.binary,
        category: t.category,
        timeout_ms: timeout,
        max_timeout_ms: maxTimeout,
        permissions: t.permissions,
        sandboxing: t.sandboxing,
        requires: t.requires,
        parameters: t.parameters,
      };
      const binaryPath = resolve(skillDir, t.binary);
      const base = { skill: skill.name, tool: t.name };
      const exe = checkExecutable(binaryPath);
      if (!exe.ok) {
        const why =
          exe.reason === "missing"
            ? "binary not found"
            : exe.reason === "not_a_file"
              ? "binary is not a file"
              : "binary is not executable";
        filtered.push({ ...base, kind: "binary", reason: `${why}: ${binaryPath}` });
        return;
      }
      const missing = t.requires.filter((r) => findOnPath(r, opts.pathEnv) === null);
      if (missing.length > 0) {
        filtered.push({
          ...base,
          kind: "requires",
          reason: `requires ${missing.map((m) => `'${m}'`).join(", ")}, not found on PATH`,
        });
        return;
      }
      if (t.sandboxing === "bubblewrap" && !opts.bwrapUsable && opts.sandboxing === "required") {
        filtered.push({
          ...base,
          kind: "sandbox",
          reason: `sandboxing = "bubblewrap" but bwrap is not usable here (sandboxing = required)`,
        });
        return;
      }
      if (t.sandboxing === "firejail" && opts.sandboxing === "required") {
        filtered.push({
          ...base,
          kind: "sandbox",
          reason: `sandboxing = "firejail" is not supported by this agent (sandboxing = required)`,
        });
        return;
      }
      candidates.push({ skillIndex, tool: { manifest, skill: skill.name, skillDir, binaryPath, output: t.output } });
    });
  }

  // Capabilities: a tool needs ALL its permissions. Unrestricted agents grant what their tools use.
  const granted =
    opts.capabilities ??
    [
      ...new Set([
        ...candidates.flatMap((c) => c.tool.manifest.permissions),
        ...mcpCandidates.flatMap((m) => m.section.permissions),
      ]),
    ].sort();
  const mcpServers: McpDeclaration[] = [];
  for (const m of mcpCandidates) {
    const lacking = m.section.permissions.filter((p) => !granted.includes(p));
    if (lacking.length === 0) mcpServers.push(m);
    else
      filtered.push({
        skill: m.skill,
        tool: MCP_SERVER_ENTRY,
        kind: "capability",
        reason: `needs permission ${lacking.map((p) => `'${p}'`).join(", ")}, not in the agent's capabilities`,
      });
  }
  const tools = new Map<string, LoadedTool>();
  for (const { tool, skillIndex } of candidates) {
    const base = { skill: tool.skill, tool: tool.manifest.name };
    const lacking = tool.manifest.permissions.filter((p) => !granted.includes(p));
    if (lacking.length > 0) {
      filtered.push({
        ...base,
        kind: "capability",
        reason: `needs permission ${lacking.map((p) => `'${p}'`).join(", ")}, not in the agent's capabilities`,
      });
      continue;
    }
    const other = tools.get(tool.manifest.name);
    if (other) {
      // First skill wins, as in protocol toolSpecsFromSkills: the model never sees two tools with one name.
      filtered.push({ ...base, kind: "duplicate", reason: `tool name already provided by skill '${other.skill}'` });
      continue;
    }
    tools.set(tool.manifest.name, tool);
    skills[skillIndex]!.tools.push(tool.manifest);
  }
  return { skills, filtered, errors, tools, capabilities: granted, mcp: mcpServers };
}

/** The `[mcp]` table checked and its timeouts resolved as a tool's are; or why it cannot be used. */
function mcpDeclaration(
  raw: unknown,
  skill: string,
  skillDir: string,
  opts: LoadSkillsOptions,
): { reason: string } | { declaration: McpDeclaration; sandboxProblem: FilteredToolInfo | null } {
  const parsed = parseValue(McpSection, raw);
  if (!parsed.ok) return { reason: `[mcp] ${parsed.error}` };
  const section = parsed.value;
  const defaults = CATEGORY_TIMEOUTS[section.category];
  let maxTimeout = section.max_timeout_ms ?? defaults.max_timeout_ms;
  let timeout = section.timeout_ms ?? Math.min(defaults.timeout_ms, maxTimeout);
  if (timeout > maxTimeout) return { reason: `[mcp] timeout_ms ${timeout} is above max_timeout_ms ${maxTimeout}` };
  if (opts.toolTimeoutCeilingMs !== null) {
    maxTimeout = Math.min(maxTimeout, opts.toolTimeoutCeilingMs);
    timeout = Math.min(timeout, maxTimeout);
  }
  const unsandboxable =
    opts.sandboxing === "required" &&
    (section.sandboxing === "firejail" || (section.sandboxing === "bubblewrap" && !opts.bwrapUsable));
  const sandboxProblem: FilteredToolInfo | null = unsandboxable
    ? {
        skill,
        tool: MCP_SERVER_ENTRY,
        kind: "sandbox",
        reason: `sandboxing = "${section.sandboxing}" cannot be provided here (sandboxing = required)`,
      }
    : null;
  return { declaration: { skill, skillDir, section, timeout_ms: timeout, max_timeout_ms: maxTimeout }, sandboxProblem };
}

/** A skill may ship its workflow text as WORKFLOW.md; the `skill` built-in hands it to the model. */
function readWorkflow(skillDir: string): string | null {
  try {
    return readFileSync(resolve(skillDir, "WORKFLOW.md"), "utf8").slice(0, MAX_WORKFLOW_CHARS);
  } catch {
    return null;
  }
}
