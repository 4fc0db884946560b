/**
 * A deny-list for the `command` parameter of shell tools. It catches the well-known accidents
 * (an LLM that decides to `rm -rf /`), not an adversary: anything can be obfuscated past a regex
 * (`eval "$(echo … | base64 -d)"`). docs/device-agent.md says so.
 */
export type DenyRule = { name: string; pattern: RegExp };

/** Where a command word can start: line start, after ; & | ( or $( or a backtick, optionally under sudo/env/exec. */
const CMD = String.raw`(?:^|[;&|(\x60\n]|\$\()\s*(?:(?:sudo|doas|env|exec|nohup|time|command|busybox)(?:\s+-\S+)*\s+)*`;
/** A disk device node: SD card, SATA/USB, NVMe, virtio, old IDE. */
const DISK = String.raw`\/dev\/(?:sd[a-z]|mmcblk\d|nvme\d|hd[a-z]|vd[a-z]|xvd[a-z])`;
const END = String.raw`(?=$|[\s;&|)\x60])`;

export const DEFAULT_DENY_RULES: readonly DenyRule[] = [
  {
    name: "rm-root",
    // rm with any options aimed at / or /* (quoted or not)
    pattern: new RegExp(String.raw`\brm\s+(?:-{1,2}[\w-]+\s+)*["']?\/\*?["']?${END}`),
  },
  { name: "rm-no-preserve-root", pattern: /--no-preserve-root\b/ },
  {
    name: "fork-bomb",
    // :(){ :|:& };:  and the same with any function name
    pattern: /(\S+)\s*\(\)\s*\{\s*\1\s*\|\s*\1\s*&\s*\}/,
  },
  { name: "mkfs", pattern: new RegExp(String.raw`${CMD}(?:mkfs(?:\.\w+)?|mke2fs|mkswap|wipefs)\b`) },
  { name: "dd-to-disk", pattern: new RegExp(String.raw`\bdd\b[^;&|\n]*\bof=["']?${DISK}`) },
  { name: "redirect-to-disk", pattern: new RegExp(String.raw`>\s*["']?${DISK}`) },
  {
    name: "shutdown-reboot",
    pattern: new RegExp(
      String.raw`${CMD}(?:shutdown|reboot|halt|poweroff|systemctl\s+(?:poweroff|reboot|halt|kexec)|init\s+[06])\b`,
    ),
  },
  {
    name: "chmod-777-root",
    pattern: new RegExp(
      String.raw`\bchmod\s+(?:-{1,2}[\w-]+\s+)*(?:-R|--recursive|-\w*R\w*)\s+(?:-{1,2}[\w-]+\s+)*[0-7]?777\s+["']?\/\*?["']?${END}`,
    ),
  },
  {
    name: "chown-root-tree",
    pattern: new RegExp(
      String.raw`\bchown\s+(?:-{1,2}[\w-]+\s+)*(?:-R|--recursive|-\w*R\w*)\s+(?:-{1,2}[\w-]+\s+)*\S+\s+["']?\/\*?["']?${END}`,
    ),
  },
];

export type DenyCheck = { denied: false } | { denied: true; rule: string };

export function buildDenyRules(extra: string[], includeDefaults: boolean): DenyRule[] {
  const custom = extra.map((source, i) => ({ name: `bash_deny[${i}] /${source}/`, pattern: new RegExp(source) }));
  return [...(includeDefaults ? DEFAULT_DENY_RULES : []), ...custom];
}

/** Whitespace is collapsed first so `rm  -rf   /` and `rm\t-rf /` are the same command. */
export function checkCommand(command: string, rules: readonly DenyRule[]): DenyCheck {
  const normalized = command.replace(/[ \t]+/g, " ");
  for (const rule of rules) {
    if (rule.pattern.test(normalized)) return { denied: true, rule: rule.name };
  }
  return { denied: false };
}
