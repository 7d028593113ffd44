/** One line of a line diff: kept (` `), removed (`-`) or added (`+`). */
export interface DiffLine {
  op: " " | "-" | "+";
  text: string;
}

// Past this many cells the LCS table costs more than the diff is worth: whole-text replace.
const MAX_TABLE_CELLS = 4_000_000;

/** The lines of a text (a final newline ends the last line, it adds none); none for null or "". */
export function splitLines(text: string | null): string[] {
  if (text === null || text === "") return [];
  return text.replace(/\n$/, "").split("\n");
}

/**
 * The line diff that turns `before` into `after` (null: the file does not exist), by longest
 * common subsequence: the one diff of the inbox (`memdir inbox show`, the web view's inbox page).
 *
 * @example
 * lineDiff("a\nb\n", "a\nc\n"); // [{op:" ",text:"a"},{op:"-",text:"b"},{op:"+",text:"c"}]
 */
export function lineDiff(before: string | null, after: string | null): DiffLine[] {
  const a = splitLines(before);
  const b = splitLines(after);
  const n = a.length;
  const m = b.length;
  if ((n + 1) * (m + 1) > MAX_TABLE_CELLS)
    return [
      ...a.map((text) => ({ op: "-" as const, text })),
      ...b.map((text) => ({ op: "+" as const, text })),
    ];
  // lengths[i * (m + 1) + j]: the LCS length of a[i..] and b[j..].
  const lengths = new Uint32Array((n + 1) * (m + 1));
  for (let i = n - 1; i >= 0; i--)
    for (let j = m - 1; j >= 0; j--)
      lengths[i * (m + 1) + j] =
        a[i] === b[j]
          ? lengths[(i + 1) * (m + 1) + j + 1] + 1
          : Math.max(lengths[(i + 1) * (m + 1) + j], lengths[i * (m + 1) + j + 1]);
  const lines: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (a[i] === b[j]) {
      lines.push({ op: " ", text: a[i] });
      i++;
      j++;
    } else if (lengths[(i + 1) * (m + 1) + j] >= lengths[i * (m + 1) + j + 1])
      lines.push({ op: "-", text: a[i++] });
    else lines.push({ op: "+", text: b[j++] });
  }
  while (i < n) lines.push({ op: "-", text: a[i++] });
  while (j < m) lines.push({ op: "+", text: b[j++] });
  return lines;
}
