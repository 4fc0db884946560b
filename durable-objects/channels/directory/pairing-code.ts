/** The same code is sent again to a user who keeps writing, at most this often. */
export const RESEND_CODE_MS = 10 * 60_000;
