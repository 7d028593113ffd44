import { closesFence, type FenceOpening, fenceOpening } from "./markdown-code.ts";

/**
 * Removes block-level HTML comments from an instruction file (pure). A block-level comment starts
 * a line (indented at most three spaces) with `<!--` and ends at the first `-->`, possibly lines
 * later; text after the `-->` on its closing line is kept. Comments inside fenced code blocks and
 * comments in the middle of a paragraph line are left alone, and so is a comment that never
 * closes: authors use comments for notes meant for humans, and losing real text would be worse
 * than showing a note.
 *
 * @example
 * stripHtmlComments("<!-- for humans -->\nUse pnpm.") // "Use pnpm."
 */
export function stripHtmlComments(text: string): string {
  const lines = text.split("\n");
  const kept: string[] = [];
  let fence: FenceOpening | null = null;
  let index = 0;
  while (index < lines.length) {
    const line = lines[index];
    if (fence) {
      kept.push(line);
      if (closesFence(line, fence)) fence = null;
      index++;
      continue;
    }
    fence = fenceOpening(line);
    const start = fence ? null : /^ {0,3}<!--/.exec(line);
    if (!start) {
      kept.push(line);
      index++;
      continue;
    }
    const end = findCommentEnd(lines, index, start[0].length);
    if (!end) {
      kept.push(line);
      index++;
      continue;
    }
    const rest = lines[end.line].slice(end.column);
    if (rest.trim() !== "") kept.push(rest.trimStart());
    index = end.line + 1;
  }
  return kept.join("\n");
}

function findCommentEnd(
  lines: readonly string[],
  line: number,
  column: number,
): { line: number; column: number } | null {
  for (let current = line; current < lines.length; current++) {
    const found = lines[current].indexOf("-->", current === line ? column : 0);
    if (found >= 0) return { line: current, column: found + 3 };
  }
  return null;
}
