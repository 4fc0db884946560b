/**
 * A long answer cut into messages of at most `max` characters, at the last paragraph break, else
 * line break, else space before the limit (a hard cut only for a run with none). A code block
 * cut in two is closed at the end of one part and opened again at the start of the next, so each
 * part renders on its own. Pure.
 */
export function splitText(text: string, max: number): string[] {
  if (max < 40) throw new Error("split limit too small");
  const parts: string[] = [];
  let rest = text;
  let reopen = "";
  while (rest.length > 0) {
    const room = max - reopen.length - 4; // room for the closing fence
    if (reopen.length + rest.length <= max) {
      parts.push(reopen + rest);
      break;
    }
    const window = rest.slice(0, room);
    let cut = Math.max(window.lastIndexOf("\n\n"), window.lastIndexOf("\n"));
    if (cut < room / 2) cut = window.lastIndexOf(" ");
    if (cut <= 0) cut = room;
    const head = reopen + rest.slice(0, cut);
    rest = rest
      .slice(cut)
      .replace(/^\s*\n/, "")
      .replace(/^ /, "");
    const fenceOpen = openFence(head);
    parts.push(fenceOpen === null ? head : `${head}\n\`\`\``);
    reopen = fenceOpen === null ? "" : `\`\`\`${fenceOpen}\n`;
  }
  return parts;
}

/** The language of a code block left open at the end of `text`, or null when none is open. */
function openFence(text: string): string | null {
  let open: string | null = null;
  for (const line of text.split("\n")) {
    const m = line.match(/^\s*```\s*([\w+-]*)\s*$/);
    if (m) open = open === null ? (m[1] ?? "") : null;
  }
  return open;
}
