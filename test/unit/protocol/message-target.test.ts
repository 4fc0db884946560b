import { describe, expect, it } from "vitest";
import { MessageRequest } from "../../../protocol/http-bodies.js";

/**
 * A target's combination rules (protocol/message-target.ts) reach zod as ordinary custom issues, so
 * whatever formats a schema's issues by their code (zod's own `prettifyError`, the MCP SDK's argument
 * errors) reads them like any other refinement's.
 */
describe("a message target's combination issues", () => {
  it("are zod custom issues at the field they name", () => {
    const parsed = MessageRequest.safeParse({ text: "hi", agent_id: "pi-1", pool: "kitchen" });
    expect(parsed.success).toBe(false);
    expect(parsed.error!.issues).toEqual([
      expect.objectContaining({
        code: "custom",
        path: ["agent_id"],
        message: "give exactly one of agent_id, agent_ids or pool",
      }),
    ]);
  });
});
