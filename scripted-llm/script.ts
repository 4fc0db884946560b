import { z } from "zod";

/**
 * The scripted model's script: rules tried in order against the last user message; a rule's
 * turns are answered in sequence, the position being the number of assistant messages since
 * that user message (so the server keeps no conversation state and a retry gets the same turn).
 */

const validRegex = (source: string) => {
  try {
    new RegExp(source, "is");
    return true;
  } catch {
    return false;
  }
};

export const ScriptQuirks = z
  .object({
    /** finish_reason "stop" although the turn has tool calls */
    finish_reason_stop: z.boolean(),
    /** `arguments` sent as a JSON object in one delta instead of string pieces */
    arguments_as_object: z.boolean(),
    /** tool calls without ids */
    missing_ids: z.boolean(),
    /** tool-call deltas without `index` */
    missing_index: z.boolean(),
    /** no usage chunk even when stream_options.include_usage asks for one */
    no_usage: z.boolean(),
    /** write the tool calls into `content` as text instead of native tool calls */
    text_tool_call: z.enum(["json", "xml"]),
    /** pause this long after the first stream chunk (stalled-stream tests) */
    stall_after_first_chunk_ms: z.number().int().min(0),
    /** Anthropic format: stop as a token cap does (stop_reason "max_tokens", the last call's input cut off) */
    max_tokens_stop: z.boolean(),
  })
  .partial()
  .strict();

export const ScriptToolCall = z
  .object({
    name: z.string().min(1),
    /** an object (templates rendered in its strings) or raw argument text, sent as is */
    arguments: z.union([z.record(z.string(), z.unknown()), z.string()]).default({}),
    id: z.string().optional(),
  })
  .strict();

export const ScriptError = z
  .object({
    status: z.number().int().min(400).max(599),
    /** seconds, sent as the Retry-After header (fractions allowed, the openai client reads them) */
    retry_after: z.number().min(0).optional(),
    /** fail this many times, then answer normally; absent = always fail */
    times: z.number().int().min(1).optional(),
    message: z.string().optional(),
    /** Anthropic format: answer 200 and send the error as an `error` event inside the stream */
    in_stream: z.boolean().optional(),
  })
  .strict();

export const ScriptTurn = z
  .object({
    content: z.string().optional(),
    tool_calls: z.array(ScriptToolCall).optional(),
    delay_ms: z.number().int().min(0).optional(),
    error: ScriptError.optional(),
    quirks: ScriptQuirks.optional(),
  })
  .strict();

export const ScriptRule = z
  .object({
    /** regex, case-insensitive, tested against the last user message; absent = any */
    match: z.string().refine(validRegex, "not a valid regular expression").optional(),
    turns: z.array(ScriptTurn).min(1),
  })
  .strict();

export const ScriptRules = z.array(ScriptRule);
export const ScriptBody = z.object({ rules: ScriptRules }).strict();

export type ScriptQuirks = z.infer<typeof ScriptQuirks>;
export type ScriptToolCall = z.infer<typeof ScriptToolCall>;
export type ScriptTurn = z.infer<typeof ScriptTurn>;
export type ScriptError = z.infer<typeof ScriptError>;
export type ScriptRule = z.infer<typeof ScriptRule>;
/** What a caller writes (defaults not yet applied). */
export type ScriptRuleInput = z.input<typeof ScriptRule>;
