import { LATE_RESULT_NOTE } from "@edgeloop/protocol/events";
import { describe, expect, it } from "vitest";
import { viewConversation } from "../../../scripted-llm/conversation-view.js";

describe("the scripted model and a late-result note", () => {
  it("reads past the note: the user's message, turn and tool results are as if it were not there", () => {
    const view = viewConversation({
      messages: [
        { role: "user", content: "commit it" },
        { role: "assistant", content: null, tool_calls: [{ id: "c1" }] },
        { role: "tool", tool_call_id: "c1", content: "Error: The outcome of 'git_commit' is unknown" },
        { role: "user", content: `${LATE_RESULT_NOTE} the earlier \`git_commit\` call (c0) did finish` },
      ],
    });
    expect(view).toMatchObject({
      user: "commit it",
      assistantTurns: 1,
      toolResults: ["Error: The outcome of 'git_commit' is unknown"],
    });
  });
});
