/**
 * What `edgeloop deploy` prints: the worker's address, the tokens it generated (once: Cloudflare
 * keeps only the secrets), and the lines that put a device on it. Pure: the command decides when.
 */

export const TOKEN_SECRETS = ["API_TOKEN", "ADMIN_TOKEN"] as const;
export type TokenSecret = (typeof TOKEN_SECRETS)[number];

/** How each token is known to the CLI (cli/settings.ts reads these variables). */
const TOKEN_VARIABLE: Record<TokenSecret, string> = {
  ADMIN_TOKEN: "EDGELOOP_ADMIN_TOKEN",
  API_TOKEN: "EDGELOOP_TOKEN",
};

/** What a run did so far: enough to report it, and to say what a re-run will do. */
export type DeployProgress = {
  /** tokens this run generated and set, by secret name */
  generated: Partial<Record<TokenSecret, string>>;
  /** tokens already set on the worker and left as they are */
  kept: TokenSecret[];
  /** every secret this run set, in order */
  secretsSet: string[];
  deployed: boolean;
};

/** The generated tokens as shell lines, or nothing. */
export function tokenExports(generated: DeployProgress["generated"]): string[] {
  return (["ADMIN_TOKEN", "API_TOKEN"] as const)
    .filter((name) => generated[name] !== undefined)
    .map((name) => `export ${TOKEN_VARIABLE[name]}=${generated[name]}`);
}

/** For a failure: what is already done, and why running the command again is safe. */
export function doneSoFar(progress: DeployProgress): string {
  if (progress.secretsSet.length === 0) return "Nothing was changed on Cloudflare; run it again once that is fixed.";
  const secrets = progress.secretsSet.length === 1 ? "a secret" : "secrets";
  const lines = [`Already done: ${progress.secretsSet.join(", ")} set as ${secrets} on the worker.`];
  const exports = tokenExports(progress.generated);
  if (exports.length > 0)
    lines.push(
      "A re-run keeps these tokens (--rotate replaces them), so they are shown now, once; keep them:",
      ...exports.map((l) => `  ${l}`),
    );
  lines.push("Run the same command again once that is fixed: it sets only what is missing, then deploys.");
  return lines.join("\n");
}

export type DeploySummary = {
  url: string;
  env: string | undefined;
  agent: string;
  progress: DeployProgress;
  /** said when the worker has no model: its conversations would end llm_error */
  modelNote: string | null;
};

export function summaryLines({ url, env, agent, progress, modelNote }: DeploySummary): string[] {
  const lines = [
    "",
    `Deployed${env ? ` (--env ${env})` : ""}: ${url}`,
    `Dashboard: ${url}/  (log in with the admin token)`,
  ];
  const exports = tokenExports(progress.generated);
  if (exports.length > 0)
    lines.push(
      "",
      "The new tokens, shown this once: Cloudflare keeps them only as secrets. Keep them (a password manager):",
      `  export EDGELOOP_URL=${url}`,
      ...exports.map((l) => `  ${l}`),
    );
  for (const name of progress.kept)
    lines.push(
      "",
      `${name} was already set and is kept: use the one you saved as ${TOKEN_VARIABLE[name]} ` +
        "(`npx edgeloop deploy --rotate` makes new ones; the old ones then stop working).",
    );
  lines.push(
    "",
    "Put a Raspberry Pi on it (docs/raspberry-pi.md):",
    "  # on the Pi (Node 20 or later): installs the agent this worker serves, shows a pairing code, runs it as a service",
    `  curl -fsSL ${url}/install | sudo sh -s -- --agent-id ${agent}`,
    "  # here: approve the code it shows",
    `  npx edgeloop devices approve <code> --url ${url} --admin-token "$EDGELOOP_ADMIN_TOKEN"`,
    "  # then, here:",
    `  npx edgeloop send "how full is the disk?" --agent ${agent} --wait --url ${url} --token "$EDGELOOP_TOKEN"`,
  );
  if (modelNote) lines.push("", modelNote);
  return lines;
}
