export { advance, initialState } from "./advance.js";
export { historyLength, windowStart } from "./history.js";
export { callName } from "./late-results.js";
export * from "./loop-config.js";
export { deadlineKey, isCallDeadline } from "./run.js";
export { toolCallCorrectionRequest, toolMessageText, truncateForModel } from "./tool-messages.js";
export * from "./types.js";
