/** WebSocket close codes the hub uses; the agent treats 4001 and 4003 as "do not retry soon". */
export const CLOSE = {
  REPLACED: { code: 4000, reason: "replaced by a newer connection" },
  TOKEN_REVOKED: { code: 4001, reason: "device token revoked" },
  AGENT_MISMATCH: { code: 4003, reason: "hello agent_id does not match the authenticated device" },
  TOO_MANY_BAD_FRAMES: { code: 4008, reason: "too many invalid frames" },
  HEARTBEAT_MISSED: { code: 4010, reason: "heartbeat missed" },
} as const;
