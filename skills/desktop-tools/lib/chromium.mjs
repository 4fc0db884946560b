// @ts-check
// Locates and launches the system chromium for the browser tool.

import { failedError, notFoundError } from "./exit.mjs";
import { which } from "./which.mjs";

const CANDIDATES = ["chromium", "chromium-browser", "google-chrome", "google-chrome-stable"];

// Quiet, headless, and without the background traffic a fresh profile would start.
const LAUNCH_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--no-first-run",
  "--disable-sync",
];

export function chromiumPath() {
  const configured = process.env.EDGELOOP_CHROMIUM;
  if (configured) {
    const found = which(configured);
    if (!found) throw notFoundError(`EDGELOOP_CHROMIUM is set to "${configured}", which is not an executable`);
    return found;
  }
  for (const name of CANDIDATES) {
    const found = which(name);
    if (found) return found;
  }
  throw notFoundError(
    "chromium is not installed (looked for chromium, chromium-browser, google-chrome on PATH; or set EDGELOOP_CHROMIUM)",
  );
}

export async function launchChromium() {
  const executablePath = chromiumPath();
  // Loaded only now: playwright takes seconds to import on a Pi, and refusals need not wait.
  const { chromium } = await import("playwright-core");
  try {
    return await chromium.launch({ executablePath, headless: true, args: LAUNCH_ARGS });
  } catch (err) {
    throw failedError(
      `could not start chromium (${executablePath}): ${err instanceof Error ? err.message.split("\n")[0] : err}`,
    );
  }
}
