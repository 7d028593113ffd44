// Just enough Markdown to know where code is: text inside fenced code blocks and inline code
// spans is shown to the model as written, so `@path` imports and HTML comments there are left
// alone (docs/design.md#instruction-files). A full Markdown parser would be overkill for two questions.

/** An open code fence: the fence character and how many of them opened it. */
export interface FenceOpening {
  char: "`" | "~";
  length: number;
}

/**
 * The fence a line opens (```` ``` ```` or `~~~`, three or more, indented at most three spaces),
 * or null. A backtick fence's info string may not itself contain a backtick (CommonMark).
 */
export function fenceOpening(line: string): FenceOpening | null {
  const match = /^ {0,3}(`{3,}|~{3,})(.*)$/.exec(line);
  if (!match) return null;
  const run = match[1];
  const char = run[0] as "`" | "~";
  if (char === "`" && match[2].includes("`")) return null;
  return { char, length: run.length };
}

/** True when `line` closes the fence `open`: the same character, at least as many, nothing after. */
export function closesFence(line: string, open: FenceOpening): boolean {
  const match = /^ {0,3}(`{3,}|~{3,})\s*$/.exec(line);
  return match !== null && match[1][0] === open.char && match[1].length >= open.length;
}

/**
 * For each line of `lines`, whether it belongs to a fenced code block (the fence lines included).
 * An unclosed fence runs to the end of the text, as in CommonMark.
 */
export function fencedLines(lines: readonly string[]): boolean[] {
  const inside: boolean[] = [];
  let open: FenceOpening | null = null;
  for (const line of lines) {
    if (open) {
      inside.push(true);
      if (closesFence(line, open)) open = null;
      continue;
    }
    open = fenceOpening(line);
    inside.push(open !== null);
  }
  return inside;
}

/**
 * `line` with the contents of every inline code span (`` `x` ``, ``` ``x`` ```) replaced by
 * spaces, so a search over the result never matches inside code while positions stay the same.
 * A backtick run with no closing run of the same length is literal text.
 */
export function maskCodeSpans(line: string): string {
  let result = "";
  let index = 0;
  while (index < line.length) {
    if (line[index] !== "`") {
      result += line[index];
      index++;
      continue;
    }
    let runEnd = index;
    while (runEnd < line.length && line[runEnd] === "`") runEnd++;
    const run = line.slice(index, runEnd);
    const close = findClosingRun(line, runEnd, run.length);
    if (close < 0) {
      result += run;
      index = runEnd;
      continue;
    }
    result += " ".repeat(close + run.length - index);
    index = close + run.length;
  }
  return result;
}

function findClosingRun(line: string, from: number, length: number): number {
  let index = from;
  while (index < line.length) {
    if (line[index] !== "`") {
      index++;
      continue;
    }
    let runEnd = index;
    while (runEnd < line.length && line[runEnd] === "`") runEnd++;
    if (runEnd - index === length) return index;
    index = runEnd;
  }
  return -1;
}
