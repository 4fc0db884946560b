export { advance, initialState } from "./advance.js";
export * from "./loop-config.js";
export { ruleTargetOf } from "./round.js";
export { deadlineKey, isCallDeadline } from "./run.js";
export { toolCallCorrectionRequest, toolMessageText, truncateForModel } from "./tool-messages.js";
export * from "./types.js";
