/** What the OAuth store says to the model and the admin, and the small helpers it needs. */

/** The error a conversation's tool call ends with, and the status an admin reads. */
export function consentNeeded(name: string, detail: string): string {
  return (
    `MCP server '${name}' needs an admin to authorize edgeloop again (${detail}): ` +
    `run \`edgeloop mcp connect ${name}\` and open the link it prints`
  );
}

export function randomToken(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(24));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

export function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** Why a server's stored state is as good as none: it was sealed under another MCP_OAUTH_SECRET. */
export const UNOPENED = "its stored tokens do not open under the current MCP_OAUTH_SECRET, which was changed";
