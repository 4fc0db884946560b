export { advance, deadlineKey, initialState } from "./advance.js";
export { toolMessageText, truncateForModel } from "./tool-messages.js";
export * from "./types.js";
