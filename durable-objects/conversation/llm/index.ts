/** The LLM edge of the conversation loop: runs in workerd and Node alike (no platform imports). */
export { ANTHROPIC_DEFAULT_MAX_TOKENS, ANTHROPIC_DEFAULT_MODEL } from "./anthropic-client.js";
export type { AnthropicRequestParams } from "./anthropic-request.js";
export { anthropicRequestJson, anthropicToolId } from "./anthropic-request.js";
export { AnthropicStreamAssembler, fromAnthropicMessage } from "./anthropic-stream.js";
export { callLlm, LLM_DEFAULTS } from "./llm-client.js";
export { memoByIdentity } from "./memo-by-identity.js";
export { chatRequestJson, frozenJson } from "./request-json.js";
export { capRetryAfter, retryAfterMillis } from "./retry-after-cap.js";
export type { CompletionConversion } from "./stream-assembler.js";
export { assembleChunks, fromCompletion, generatedCallId, StreamAssembler } from "./stream-assembler.js";
export type { TextProtocolTool } from "./text-protocol-prompts.js";
export {
  isTextProtocolToolResult,
  TEXT_PROTOCOL_RESULT_PREFIX,
  textProtocolSystemSection,
  textProtocolToolsFrom,
  toTextProtocolMessages,
} from "./text-protocol-prompts.js";
export type { TextToolCall, TextToolCallExtraction } from "./text-tool-calls.js";
export { extractTextToolCalls, withTextToolCalls } from "./text-tool-calls.js";
export type {
  AiRunner,
  ChatMessage,
  ChatTool,
  ChatToolChoice,
  LlmCallOptions,
  LlmConfig,
  LlmError,
  LlmErrorKind,
  LlmProvider,
  LlmRequest,
  LlmResult,
  LlmToolCall,
  LlmTurn,
  LlmUsage,
} from "./types.js";
export {
  callWorkersAi,
  WORKERS_AI_DEFAULT_MAX_TOKENS,
  WORKERS_AI_DEFAULT_MODEL,
  WORKERS_AI_HOW_TO,
  workersAiError,
} from "./workers-ai-client.js";
export { bindingMessages, fromWorkersAiOutput, WorkersAiChunks } from "./workers-ai-output.js";
