import path from "node:path";
import { parseFrontmatter } from "../memdir/format/frontmatter.ts";
import { INDEX_FILE, parseIndex } from "../memdir/format/index-file.ts";
import { readRegularText } from "../memdir/fs/regular-file.ts";
import { scanHeaders } from "../memdir/scan/scan.ts";
import type { ProgressSink } from "../types.ts";

/**
 * Every memory of a memory dir as JSON Lines (docs/import.md#export): one object a line,
 * `{file, title?, ...frontmatter, body}` (the frontmatter's own keys as they are: `name`,
 * `description`, `type`, `modified`, `source`…), so a user can leave as easily as they came, and
 * `memdir import jsonl` reads it back. Sorted by file name, so two exports of the same memories
 * are the same text. Calls `write` once per line; `progress` counts the files read.
 *
 * @example
 * await exportJsonl(memoryDir, (line) => process.stdout.write(line)); // {"file":"user-role.md",…}\n
 */
export async function exportJsonl(
  memoryDir: string,
  write: (line: string) => void | Promise<void>,
  progress?: ProgressSink,
): Promise<number> {
  const headers = await scanHeaders(memoryDir, { cache: null });
  const indexText = await readRegularText(path.join(memoryDir, INDEX_FILE)).catch(() => "");
  const titles = new Map(parseIndex(indexText).map((entry) => [entry.file, entry.title]));
  let count = 0;
  let done = 0;
  for (const header of [...headers].sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0))) {
    const text = await readRegularText(header.path).catch(() => null);
    // Every 100 files, not per file: at 20,000 an export reads for seconds (docs/design.md#progress).
    done++;
    if (progress && (done % 100 === 0 || done === headers.length))
      progress("exporting memories", done, headers.length);
    if (text === null) continue;
    const parsed = parseFrontmatter(text);
    const title = titles.get(header.file);
    await write(
      // `file`, `title` and `body` last: a frontmatter key of the same name does not hide them.
      `${JSON.stringify({ ...parsed.data, file: header.file, ...(title ? { title } : {}), body: parsed.body })}\n`,
    );
    count++;
  }
  return count;
}
