import { Identifier } from "@edgeloop/protocol";
import { doneError } from "./outcome.js";
import type { BuiltinContext, BuiltinResult } from "./types.js";

/** The sessions_* tools' argument for a conversation id: the same plain identifier the API uses. */
export const ConversationIdArg = Identifier;

/**
 * A conversation may read or message only itself and the conversations it started or was told
 * about (ctx.conversations.known()). Ids are guessable, so without this a model could read any
 * other user's history on the same deployment.
 */
export function knownConversations(ctx: BuiltinContext): string[] {
  return [...new Set([ctx.conversation_id, ...ctx.conversations.known()])];
}

export function isKnownConversation(ctx: BuiltinContext, conversationId: string): boolean {
  return knownConversations(ctx).includes(conversationId);
}

export function unknownConversation(tool: string, conversationId: string, ctx: BuiltinContext): BuiltinResult {
  return doneError(
    tool,
    `conversation "${conversationId}" is not one this conversation started or knows; known: ${knownConversations(ctx).join(", ")}`,
    "permission_denied",
  );
}
