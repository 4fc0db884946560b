export { advance, initialState, deadlineKey } from "./advance.js";
export * from "./types.js";
export { toolMessageText, truncateForModel } from "./tool-messages.js";
