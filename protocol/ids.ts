import { z } from "zod";

/** Agent ids, conversation ids and request ids travel in URLs, topics and SQL: keep them plain. */
export const Identifier = z
  .string()
  .min(1)
  .max(128)
  .regex(/^[A-Za-z0-9][A-Za-z0-9._:-]*$/, "letters, digits, '.', '_', ':' and '-' only");

/** Tool names as OpenAI accepts them. */
export const ToolName = z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/, "1-64 of [a-zA-Z0-9_-]");
