/**
 * A one-line spinner for long waits, drawn on stderr and only when stdout is a terminal, so
 * piped output and --json stay clean. `print` clears it before writing a line of real output.
 */
const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

export type Progress = {
  set: (text: string) => void;
  print: (text: string) => void;
  write: (text: string) => void;
  endLine: () => void;
  stop: () => void;
};

export function progress(enabled = Boolean(process.stdout.isTTY && process.stderr.isTTY)): Progress {
  let text = "";
  let frame = 0;
  let shown = false;
  let midLine = false;
  const clear = () => {
    if (shown) process.stderr.write("\r\x1b[2K");
    shown = false;
  };
  const draw = () => {
    if (!enabled || !text || midLine) return;
    process.stderr.write(`\r\x1b[2K${FRAMES[frame++ % FRAMES.length]} ${text}`);
    shown = true;
  };
  const timer = enabled ? setInterval(draw, 100) : undefined;
  timer?.unref();
  return {
    set: (t) => {
      text = t;
      draw();
    },
    print: (line) => {
      clear();
      if (midLine) process.stdout.write("\n");
      midLine = false;
      process.stdout.write(`${line}\n`);
    },
    // Streamed text (model deltas) with no newline yet: the spinner waits until the line ends.
    write: (chunk) => {
      clear();
      process.stdout.write(chunk);
      midLine = !chunk.endsWith("\n");
    },
    endLine: () => {
      if (midLine) process.stdout.write("\n");
      midLine = false;
    },
    stop: () => {
      if (timer) clearInterval(timer);
      clear();
      if (midLine) process.stdout.write("\n");
      midLine = false;
    },
  };
}
