import type { z } from "zod";

/** One line naming the file and the TOML key that failed, including an unknown key's own name. */
export function tomlIssue(file: string, error: z.ZodError): string {
  const issue = error.issues[0]!;
  const keys = issue.code === "unrecognized_keys" ? [...issue.path, ...issue.keys] : issue.path;
  return `${file}: ${keys.map(String).join(".")}: ${issue.message}`;
}
