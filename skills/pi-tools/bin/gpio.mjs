// @ts-check
// GPIO access for gpio_read / gpio_write through whichever Raspberry Pi command is installed:
// `pinctrl` (Raspberry Pi OS Bookworm and later) or the older `raspi-gpio`. Not a tool binary.

import { failedError, notFoundError } from "../../desktop-tools/lib/exit.mjs";
import { runCommand } from "../../desktop-tools/lib/run-command.mjs";
import { which } from "../../desktop-tools/lib/which.mjs";

/** The 28 GPIOs on the Raspberry Pi 40-pin header, in BCM numbering. */
export const PIN_SPEC = { type: /** @type {const} */ ("integer"), required: true, minimum: 0, maximum: 27 };

/** @returns {{ kind: "pinctrl" | "raspi-gpio", path: string }} */
function gpioCommand() {
  const pinctrl = which("pinctrl");
  if (pinctrl) return { kind: "pinctrl", path: pinctrl };
  const raspiGpio = which("raspi-gpio");
  if (raspiGpio) return { kind: "raspi-gpio", path: raspiGpio };
  throw notFoundError(
    "no GPIO command found: neither pinctrl nor raspi-gpio is on PATH (install raspi-utils on Raspberry Pi OS)",
  );
}

/**
 * @param {number} pin
 * @returns {Promise<{ level: 0 | 1, line: string }>} line: the command's own description of the pin
 */
export async function readPin(pin) {
  const cmd = gpioCommand();
  const out = await run(cmd.path, ["get", String(pin)]);
  const line =
    out
      .trim()
      .split("\n")
      .find((l) => l.trim() !== "") ?? "";
  // pinctrl: "17: ip    pd | lo // GPIO17 = input"; raspi-gpio: "GPIO 17: level=1 fsel=0 func=INPUT"
  const match = cmd.kind === "pinctrl" ? /\|\s*(hi|lo)\b/.exec(line) : /level=([01])/.exec(line);
  if (!match) throw failedError(`could not read the level of GPIO ${pin} from ${cmd.kind} output: ${line}`);
  const level = match[1] === "hi" || match[1] === "1" ? 1 : 0;
  return { level, line: line.trim() };
}

/**
 * Make the pin an output driven to `level`.
 * @param {number} pin @param {0 | 1} level
 */
export async function writePin(pin, level) {
  const cmd = gpioCommand();
  await run(cmd.path, ["set", String(pin), "op", level === 1 ? "dh" : "dl"]);
}

/** @param {string} program @param {string[]} args */
async function run(program, args) {
  const result = await runCommand(program, args);
  if (result.code !== 0) {
    const why = (result.stderr.trim() || result.stdout.trim() || `exit ${result.code}`).split("\n")[0];
    throw failedError(`${program} ${args.join(" ")} failed: ${why}`);
  }
  return result.stdout;
}
