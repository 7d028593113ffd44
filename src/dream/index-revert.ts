import { lineDiff, splitLines } from "../memdir/format/line-diff.ts";

/** Why a line change could not be taken back: the line it added is no longer in the index. */
export interface IndexRevertConflict {
  line: string;
}

/** The index of `line` in `lines`, looking from `from` on first, then anywhere; -1 when absent. */
function findLine(lines: readonly string[], line: string, from: number): number {
  const ahead = lines.indexOf(line, Math.max(0, from));
  return ahead >= 0 ? ahead : lines.indexOf(line);
}

/**
 * Takes back one recorded change to `MEMORY.md` as line changes against the index as it is now
 * (docs/design.md#undo): the lines the change added are removed, the lines it removed come back
 * where they were (in place of the line that replaced them, else after the line they followed),
 * and every other line of `current` stays as it is. When `current` is still what the change left,
 * the result is `before` byte for byte. Pure.
 *
 * @returns the new index text, or the first line the change added that is no longer there (a
 *   later change rewrote or removed it: taking the change back would guess).
 * @example
 * revertIndexLines("- [A](a.md) — a\n", "", "- [B](b.md) — b\n"); // "- [B](b.md) — b\n- [A](a.md) — a\n"
 */
export function revertIndexLines(
  before: string,
  after: string,
  current: string,
): { text: string } | { conflict: IndexRevertConflict } {
  if (current === after) return { text: before };
  const lines = splitLines(current);
  // From what the change left (`after`) back to what was there (`before`): `-` lines to take out
  // of the current index, `+` lines to put back; ` ` lines are the context that places them.
  const ops = lineDiff(after, before);
  let anchor = -1; // where in `lines` the last context line is (-1: the top)
  for (let i = 0; i < ops.length; ) {
    if (ops[i].op === " ") {
      const found = findLine(lines, ops[i].text, anchor + 1);
      if (found >= 0) anchor = found;
      i++;
      continue;
    }
    let end = i;
    while (end < ops.length && ops[end].op !== " ") end++;
    const hunk = ops.slice(i, end);
    i = end;
    let at = -1;
    for (const op of hunk) {
      if (op.op !== "-") continue;
      const found = findLine(lines, op.text, anchor + 1);
      if (found < 0) return { conflict: { line: op.text } };
      if (at < 0 || found < at) at = found;
      lines.splice(found, 1);
      if (found <= anchor) anchor--;
    }
    const restored = hunk.filter((op) => op.op === "+").map((op) => op.text);
    const place = at >= 0 ? at : anchor + 1;
    lines.splice(place, 0, ...restored);
    anchor = place + restored.length - 1;
  }
  const endsWithNewline = current === "" ? before.endsWith("\n") : current.endsWith("\n");
  return { text: lines.length === 0 ? "" : `${lines.join("\n")}${endsWithNewline ? "\n" : ""}` };
}
