// @ts-check
// A last-ditch refusal of a few catastrophic shell commands (`rm -rf /` and the like).
// It is trivially bypassable and is not the security boundary: the agent's bubblewrap sandbox
// is. It only stops the obvious accidents an LLM can make.

/** @type {{ pattern: RegExp, why: string }[]} */
const DENIED = [
  {
    pattern: /\brm\s+(-[a-zA-Z]*\s+)*-[a-zA-Z]*[rR][a-zA-Z]*\s+(-[a-zA-Z]*\s+)*(\/|\/\*|~\/?|\$HOME\/?)(\s|;|&|\||$)/,
    why: "recursive delete of / or the home folder",
  },
  { pattern: /\bmkfs(\.\w+)?\b/, why: "formatting a filesystem" },
  { pattern: /\bdd\b[^;&|]*\bof=\/dev\/(sd|hd|nvme|mmcblk|vd)/, why: "writing raw to a disk device" },
  { pattern: />\s*\/dev\/(sd|hd|nvme|mmcblk|vd)[a-z0-9]*/, why: "writing raw to a disk device" },
  { pattern: /:\s*\(\s*\)\s*\{\s*:\s*\|\s*:\s*&\s*\}\s*;\s*:/, why: "fork bomb" },
];

/**
 * @param {string} command
 * @returns {string | null} why it is refused, or null when allowed
 */
export function deniedReason(command) {
  for (const rule of DENIED) if (rule.pattern.test(command)) return rule.why;
  return null;
}
