/** The API answers the CLI validates: one definition in protocol/, shared with the worker's OpenAPI document. */
export { MessageAccepted } from "@edgeloop/protocol";
export {
  AuditEntry,
  AuditPage,
  ConversationList,
  ConversationView,
  Decision,
  DeviceList,
  IssuedToken,
  MetricsReport,
  RevokedKeysCleared,
  TokenList,
  TokenRevoked,
} from "@edgeloop/protocol/api-responses";
