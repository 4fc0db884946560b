import { ContentBlock } from "@edgeloop/protocol/content-blocks";
import { parseJson } from "@edgeloop/protocol/parse";
import { z } from "zod";

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
