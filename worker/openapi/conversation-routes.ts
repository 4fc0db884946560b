import { MessageAccepted, MessageRequest, WaitQuery, WaitReply } from "@edgeloop/protocol";
import { ConversationList, ConversationView, Decision } from "@edgeloop/protocol/api-responses";
import { ApprovalDecision } from "@edgeloop/protocol/approval-rules";
import { HistoryPageQuery } from "@edgeloop/protocol/history-page";
import { z } from "zod";
import { api, json, problem, type Route, text } from "./route.js";

/** Messages and conversations: what clients of the loop call. */
export const CONVERSATION_ROUTES: Route[] = [
  {
    method: "POST",
    path: "/v1/messages",
    summary: "Send a message to a device, several devices (a fleet) or a pool; `?wait=N` (seconds) waits for the reply",
    tag: "messages",
    auth: { kind: "message" },
    body: MessageRequest,
    query: z.object({ wait: WaitQuery.optional() }),
    responses: {
      200: json("with `?wait=N`: the reply, or the run so far when N seconds pass", WaitReply),
      202: json("accepted; the loop runs in the conversation's Durable Object", MessageAccepted),
      404: problem(
        "`Unknown device`: the `agent_id` has no token (DEVICE_TOKENS or issued) and never connected " +
          "(a known device that is offline still gets the message, queued)",
      ),
      413: problem("the body, the text or the images (MESSAGE_IMAGES_MAX_BYTES) are over their limits"),
    },
  },
  {
    method: "GET",
    path: "/v1/conversations",
    summary: "The newest conversations from the index (`limit`, `agent_id`, `status`); a key sees its own",
    tag: "conversations",
    auth: api("conversations:read"),
    responses: { 200: json("newest first", ConversationList) },
  },
  {
    method: "GET",
    path: "/v1/conversations/:id",
    summary: "A page of the history (`from` or `before`, `limit`), status, replies, pending calls and compactions",
    tag: "conversations",
    auth: api("conversations:read"),
    query: HistoryPageQuery,
    responses: {
      200: json("the conversation, with messages `messages_from`… of `messages_total`", ConversationView),
      400: problem("a query value out of range"),
    },
  },
  {
    method: "GET",
    path: "/v1/conversations/:id/events",
    summary: "The conversation's events as Server-Sent Events; `Last-Event-ID` resumes",
    tag: "conversations",
    auth: api("conversations:read"),
    responses: { 200: text("the event stream", "text/event-stream") },
  },
  {
    method: "POST",
    path: "/v1/conversations/:id/cancel",
    summary: "Stop the running loop",
    tag: "conversations",
    auth: api("conversations:write"),
    responses: { 200: json("cancelled, or nothing was running") },
  },
  {
    method: "POST",
    path: "/v1/conversations/:id/approvals/:call",
    summary: "Approve or deny a call waiting for approval; `scope` always/deny_always remembers it as a rule",
    tag: "conversations",
    auth: api("conversations:write"),
    body: ApprovalDecision,
    responses: { 200: json("decided", Decision) },
  },
  {
    method: "POST",
    path: "/v1/conversations/:id/answers/:call",
    summary:
      "Answer a `question` (the model's, or a remote or device MCP server's) with `{answer}`, or `{action}` decline/cancel; 422: the answer does not fit the server's form",
    tag: "conversations",
    auth: api("conversations:write"),
    responses: {
      200: json("answered", Decision),
      503: problem("a device MCP server's question whose device is offline: not answered, still open"),
    },
  },
  {
    method: "GET",
    path: "/v1/conversations/:id/canvas",
    summary: "The conversation's canvas artifact (HTML under a no-script CSP, or markdown)",
    tag: "conversations",
    auth: api("conversations:read"),
    responses: { 200: text("the artifact", "text/html") },
  },
  {
    method: "GET",
    path: "/v1/conversations/:id/images/:hash",
    summary: "One of the conversation's images by its SHA-256, as the history and events reference it (docs/images.md)",
    tag: "conversations",
    auth: api("conversations:read"),
    responses: {
      200: text("the image, cacheable for good (its address is its content)", "image/*"),
      404: problem("no such image in this conversation, or a conversation the caller may not see"),
    },
  },
];
