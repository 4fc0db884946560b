/**
 * What an OpenClaw node's socket carries through hibernation, next to the hub's own attachment
 * fields (sockets/device-sockets.ts): the challenge it must sign, and once it is in, who it is. Kept
 * small: an attachment holds at most 2 KiB.
 */
export type NodeSocketState = {
  /** the `connect.challenge` nonce this socket must sign */
  nonce: string;
  /** the challenge's `ts`, which the node signs as `signedAt` */
  challenge_ts: number;
  /** set once `connect` succeeded: the node's device id (the SHA-256 of its key), also its nodeId */
  device_id?: string;
  /** the origin the node connected to, for links it is given (a stored clip's) */
  origin?: string;
  /** the negotiated protocol (4, or 3 for an older node) */
  protocol?: number;
  /**
   * the Computer Use execution this connection's `computer.act` and `screen.snapshot` share (a
   * UUID): the node binds a screenshot's frame to it, and closes it when the connection drops
   */
  execution_id?: string;
};

/** A node sends no pings, only its host stats every 60 s: silence shorter than this is not death. */
export const NODE_SILENCE_MS = 150_000;
