import { z } from "zod";
import { ContentBlock } from "../../../protocol/content-blocks.js";
import { parseJson } from "../../../protocol/parse.js";

/** docs/skills.md: with `output = "content"`, stdout is one JSON object of result text and blocks. */
export const ContentOutput = z.object({
  result: z.string().default(""),
  content: z.array(ContentBlock).default([]),
});
export type ContentOutput = z.infer<typeof ContentOutput>;

export function parseContentOutput(stdout: string): { ok: true; value: ContentOutput } | { ok: false; error: string } {
  const parsed = parseJson(ContentOutput, stdout);
  return parsed.ok ? parsed : { ok: false, error: parsed.error };
}
