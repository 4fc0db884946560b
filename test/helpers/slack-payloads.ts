/**
 * Slack's inbound bodies as its documentation shows them, for tests: Events API envelopes (a direct
 * message, a mention in a channel) and Block Kit button presses. Each call gets fresh ids (`ts`,
 * `event_id`, `trigger_id`), as Slack's do.
 */
export function slackPayloads(botUser: string) {
  let ts = 1_700_000_000;

  /** An Events API envelope (api.slack.com/apis/events-api#callback-field). */
  function eventCallback(event: { ts: string; [field: string]: unknown }) {
    return {
      token: "XXYYZZ",
      team_id: "T123ABC456",
      api_app_id: "A123ABC456",
      event: { event_ts: event.ts, ...event },
      type: "event_callback",
      event_id: `Ev${++ts}`,
      event_time: ts,
      authorizations: [{ team_id: "T123ABC456", user_id: botUser, is_bot: true }],
    };
  }

  /** A direct message: its channel is the user's DM with the bot. */
  const directMessage = (user: string, text: string) =>
    eventCallback({
      type: "message",
      channel: `D${user.slice(1)}`,
      user,
      text,
      ts: `${++ts}.000100`,
      channel_type: "im",
    });

  /** A direct message sharing a file (a `file_share` message), as Slack sends a picture. */
  const fileShare = (user: string, text: string, file: Record<string, string>) =>
    eventCallback({
      type: "message",
      subtype: "file_share",
      channel: `D${user.slice(1)}`,
      user,
      text,
      ts: `${++ts}.000100`,
      channel_type: "im",
      files: [file],
    });

  /** A mention in a channel: it starts a thread, and the thread is the conversation. */
  const mention = (channel: string, user: string, text: string) =>
    eventCallback({ type: "app_mention", channel, user, text: `<@${botUser}> ${text}`, ts: `${++ts}.000200` });

  /** A button press (api.slack.com/reference/interaction-payloads/block-actions), as its form body. */
  function press(user: string, card: { channel: string; ts: string; threadTs?: string }, value: string): string {
    const payload = {
      type: "block_actions",
      team: { id: "T123ABC456", domain: "example" },
      user: { id: user, username: user.toLowerCase(), team_id: "T123ABC456" },
      api_app_id: "A123ABC456",
      token: "9s8d9as89d8as9d8as989",
      container: {
        type: "message",
        message_ts: card.ts,
        channel_id: card.channel,
        is_ephemeral: false,
        ...(card.threadTs ? { thread_ts: card.threadTs } : {}),
      },
      trigger_id: `${++ts}.333649436676.d8c1bb837935619ccad0f624c448ffb3`,
      channel: { id: card.channel, name: "team" },
      message: { type: "message", ts: card.ts, ...(card.threadTs ? { thread_ts: card.threadTs } : {}) },
      actions: [{ action_id: "edgeloop_0", block_id: "b", type: "button", value, action_ts: `${ts}.840180` }],
    };
    return new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
  }

  return { directMessage, fileShare, mention, press };
}
