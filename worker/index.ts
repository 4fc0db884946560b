import { app } from "./app.js";

export { ConversationDO } from "../durable-objects/conversation/conversation-do.js";
export { DeviceHubDO } from "../durable-objects/device-hub/device-hub-do.js";

export default app;
