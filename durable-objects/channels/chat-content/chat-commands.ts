/**
 * The commands a chat user may type. Anything else is a message for the model. In group chats
 * Telegram appends the bot's name (`/new@my_bot`), which is dropped. Pure.
 */
export type ChatCommand =
  | { kind: "new" }
  | { kind: "device"; target: string | null }
  | { kind: "help" }
  | { kind: "approve"; code: string }
  | { kind: "unknown"; name: string };

export function parseCommand(text: string): ChatCommand | null {
  const m = text.trim().match(/^\/([A-Za-z_]+)(?:@\w+)?(?:\s+(.*))?$/s);
  if (!m) return null;
  const name = m[1]!.toLowerCase();
  const arg = m[2]?.trim() ?? "";
  switch (name) {
    case "new":
      return { kind: "new" };
    case "device":
      return { kind: "device", target: arg === "" ? null : arg };
    case "approve":
      return { kind: "approve", code: arg };
    case "help":
    case "start":
      return { kind: "help" };
    default:
      return { kind: "unknown", name };
  }
}

export const HELP_TEXT = [
  "Write to talk to your device's agent. Commands:",
  "/new — start a fresh conversation",
  "/device NAME — talk to another device (or pool:NAME) you may use",
  "/approve CODE — let in a device that asked to pair (approvers only)",
  "/help — this text",
].join("\n");
