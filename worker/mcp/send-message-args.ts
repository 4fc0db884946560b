import { Identifier, MAX_MESSAGE_TEXT } from "@edgeloop/protocol";
import { MessageTargetFields, refineTarget } from "@edgeloop/protocol/message-target";
import { z } from "zod";

/** `send_message`'s arguments: a message's target and text (protocol/message-target.ts), and how long to wait. */
export const SendMessageArgs = z
  .object({
    ...MessageTargetFields,
    text: z.string().min(1, "must not be empty").max(MAX_MESSAGE_TEXT),
    conversation_id: Identifier.optional(),
    wait_seconds: z.number().int().min(1).max(600).default(50),
  })
  .strict()
  .superRefine((m, ctx) => refineTarget(m, ctx));
