/** The dashboard in a headless Debian Chromium (playwright-core), logged in with the admin token. */
import { type Browser, chromium, type Locator, type Page } from "playwright-core";
import { ADMIN_TOKEN } from "./local-worker.js";
import { systemTool } from "./system-tools.js";

export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--no-first-run",
  "--disable-sync",
];

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: systemTool("chromium"), args: CHROMIUM_ARGS });
}

/**
 * A page that records script errors and CSP violations (the page must cause none) into `errors`.
 * @param errors filled as they happen
 */
export async function dashboardPage(browser: Browser, errors: string[], width = 1400): Promise<Page> {
  const page = await browser.newPage({ viewport: { width, height: 1000 } });
  page.on("pageerror", (e) => errors.push(e.message));
  page.on("console", (m) => {
    if (m.type() === "error" && /Content Security Policy/i.test(m.text())) errors.push(m.text());
  });
  return page;
}

export async function logIn(page: Page, url: string): Promise<void> {
  await page.goto(`${url}/`);
  await page.getByLabel("Admin token").fill(ADMIN_TOKEN);
  await page.getByRole("button", { name: "Log in" }).click();
  await page.getByRole("heading", { name: /Devices/ }).waitFor();
}

/**
 * A conversation's question card, as a person reaches it: the conversation opened from the list,
 * then the timeline's card that shows `question`.
 */
export async function openQuestionCard(page: Page, conversationId: string, question: string): Promise<Locator> {
  const open = page.locator(`button[data-conversation="${conversationId}"]`);
  await open.waitFor({ timeout: 20_000 });
  await open.click();
  return page.locator("#timeline li[data-question]", { hasText: question });
}
