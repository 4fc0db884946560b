/**
 * Plain-text tables that fit the terminal: when the natural width is too wide, the flexible
 * columns (free text: tools, last text, arguments) give up width first, then the others, each
 * cut with an ellipsis. With no terminal (a pipe), nothing is cut unless COLUMNS says so.
 */
export type Column<Row> = {
  header: string;
  value: (row: Row) => string;
  align?: "left" | "right";
  flex?: boolean;
  min?: number;
};

const GAP = 2;

export function terminalWidth(): number | undefined {
  if (process.stdout.isTTY && process.stdout.columns) return process.stdout.columns;
  const env = Number(process.env.COLUMNS);
  return Number.isInteger(env) && env > 0 ? env : undefined;
}

const width = (s: string) => [...s].length;

function cut(s: string, w: number): string {
  if (width(s) <= w) return s;
  if (w <= 1) return [...s].slice(0, w).join("");
  return `${[...s].slice(0, w - 1).join("")}…`;
}

export function renderTable<Row>(columns: Column<Row>[], rows: Row[], maxWidth = terminalWidth()): string {
  const cells = rows.map((r) => columns.map((c) => c.value(r).replace(/[\r\n\t]+/g, " ")));
  const widths = columns.map((c, i) => Math.max(width(c.header), ...cells.map((row) => width(row[i]!))));
  if (maxWidth !== undefined) {
    const total = () => widths.reduce((a, b) => a + b, 0) + GAP * (columns.length - 1);
    // First the flexible columns give up width down to a readable 24, then the widest of any
    // column shrinks, never below its minimum.
    for (const flexOnly of [true, false]) {
      while (total() > maxWidth) {
        let pick = -1;
        columns.forEach((c, i) => {
          const floor = flexOnly ? Math.max(24, width(c.header)) : (c.min ?? Math.min(width(c.header), 6));
          if ((!flexOnly || c.flex) && widths[i]! > floor && (pick === -1 || widths[i]! > widths[pick]!)) pick = i;
        });
        if (pick === -1) break;
        widths[pick]! -= 1;
      }
    }
  }
  const line = (values: string[]) =>
    values
      .map((v, i) => {
        const text = cut(v, widths[i]!);
        const pad = " ".repeat(Math.max(0, widths[i]! - width(text)));
        return columns[i]!.align === "right" ? pad + text : i === values.length - 1 ? text : text + pad;
      })
      .join(" ".repeat(GAP))
      .trimEnd();
  return [line(columns.map((c) => c.header.toUpperCase())), ...cells.map(line)].join("\n");
}
