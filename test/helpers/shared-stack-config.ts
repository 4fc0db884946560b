/**
 * What the e2e files sharing one worker (shared-stack.ts) agree on, fixed when the worker starts:
 * the devices each of them runs, with their tokens (DEVICE_TOKENS), and the settings all of them
 * run with. An agent id belongs to one file only, so no file sees another's device.
 *
 * Settings here are the shared files' own, each harmless to the others: they only shorten waits
 * a file without scripted model errors or lost devices never meets, or act on what only their
 * file sends. A file whose settings would change another's behaviour keeps a worker of its own.
 */
export const SHARED_DEVICES: Readonly<Record<string, string>> = {
  // provider-quirks.test.ts
  "pi-q": "quirks-device-token",
  // walking-skeleton.test.ts
  "skeleton-1": "e2e-device-token-skeleton-1",
  "skeleton-2": "e2e-device-token-skeleton-2",
  // reply-url.test.ts: a known device that never connects
  "pi-none": "t",
  // installed-packages.test.ts
  "ws-1": "e2e-installed-ws-1",
  "ws-24": "e2e-installed-ws-24",
  "mq-1": "e2e-installed-mq-1",
  // named-hooks.test.ts
  "hk-1": "e2e-hk-1",
};

/** named-hooks.test.ts signs its deliveries with these. */
export const NAMED_HOOK_SECRETS = { github: "gh-hook-secret", grafana: "grafana-hook-secret" };

export const SHARED_VARS: Readonly<Record<string, string>> = {
  // A model that stays down fails after 3 requests instead of 4 (provider-quirks.test.ts).
  LLM_MAX_RETRIES: "2",
  // A call to a device that went away ends 1 s past its timeout, not 3 s (walking-skeleton.test.ts).
  DEVICE_RESULT_GRACE_MS: "1000",
  // Replies to a `reply_url` are signed with it (reply-url.test.ts); no other file gives one.
  REPLY_SIGNING_SECRET: "reply-signing-secret",
  // The test's receivers are on loopback (reply-url.test.ts); no file checks that such an address is refused.
  ALLOW_PRIVATE_OUTBOUND: "true",
  // named-hooks.test.ts: its hooks, on its device and its pool; they run only when called by name.
  POOLS: "ops:hk-1",
  HOOKS: JSON.stringify({
    github: {
      verify: "github",
      agent: "hk-1",
      events: ["issues"],
      template: "GitHub {{@event}} {{action}} on {{repository.full_name}}: #{{issue.number}} {{issue.title}}",
    },
    grafana: {
      verify: "grafana",
      pool: "ops",
      template: "Grafana {{status}}: {{alerts.0.labels.alertname}} ({{alerts.0.annotations.summary}})",
    },
  }),
  HOOK_SECRETS: `github:${NAMED_HOOK_SECRETS.github},grafana:${NAMED_HOOK_SECRETS.grafana}`,
};

/** Where the shared worker and model answer, once started. */
export type SharedStackInfo = { workerUrl: string; llmOrigin: string };

declare module "vitest" {
  export interface ProvidedContext {
    /** the global setup's launcher (vitest `provide`/`inject`): `POST /start` answers a SharedStackInfo */
    sharedStackLauncher: string;
  }
}
