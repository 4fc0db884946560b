/**
 * The system tools tests run (chromium, bwrap, mosquitto, git), found the way `npm test`'s pretest
 * found or installed them. A missing one throws an error naming the Debian package and how to get
 * it, so the test that needs it fails with that reason instead of being skipped.
 */
import { findCommand, TEST_TOOLS, type TestToolName } from "../../scripts/test-tools.js";

/** Overrides for a tool in an unusual place, e.g. `EDGELOOP_CHROMIUM=/opt/chrome/chrome`. */
const OVERRIDES: Partial<Record<TestToolName, string>> = {
  chromium: "EDGELOOP_CHROMIUM",
  mosquitto: "MOSQUITTO_BIN",
};

export function systemTool(name: TestToolName): string {
  const envName = OVERRIDES[name];
  const override = envName ? process.env[envName] : undefined;
  const tool = TEST_TOOLS[name];
  const found = !override
    ? findCommand(tool.commands, process.env.PATH)
    : override.includes("/")
      ? findCommand([override], "", [""])
      : findCommand([override], process.env.PATH);
  if (found) return found;
  throw new Error(
    `${tool.commands[0]} is needed for ${tool.why} but is not installed here` +
      (override ? ` (${envName}=${override} is not an executable)` : "") +
      `. \`npm test\` installs it when it can; otherwise run: sudo apt-get install -y ${tool.aptPackage}`,
  );
}
