import fs from "node:fs/promises";
import { qwenMemoryPlaces } from "../../hosts/qwen/memory-files.ts";
import { readAddedMemories } from "./added-memories.ts";
import { readMarkdownFolder } from "./markdown.ts";
import type { ReaderContext, SourceRead } from "./types.ts";

/**
 * Qwen Code keeps memory in two places (docs/import.md#qwen): `save_memory`'s bullets under
 * `## Qwen Added Memories` in `~/.qwen/QWEN.md`, and its managed auto memory, markdown files with
 * frontmatter and a `MEMORY.md` index: per project in `~/.qwen/projects/<sanitized git root>/memory/`
 * (every character but ASCII letters and digits made `-`, as memdir names project folders), across
 * projects in `~/.qwen/memories/`, and in `<project>/.qwen/memory/` when it keeps memory locally.
 * `--from` names one of them: a file is read for its section, a folder as notes.
 */
export async function readQwen(from: string | undefined, context: ReaderContext): Promise<SourceRead> {
  if (from !== undefined) {
    const isFolder = await fs
      .stat(from)
      .then((stat) => stat.isDirectory())
      .catch(() => false);
    return isFolder ? readMarkdownFolder("qwen", from) : readAddedMemories("qwen", from);
  }
  const read: SourceRead = { candidates: [], skipped: [] };
  const places = defaultQwenPlaces(context);
  let found = 0;
  for (const place of places) {
    const exists = await fs
      .stat(place)
      .then(() => true)
      .catch(() => false);
    if (!exists) continue;
    found++;
    const part = place.endsWith(".md")
      ? await readAddedMemories("qwen", place)
      : await readMarkdownFolder("qwen", place);
    read.candidates.push(...part.candidates);
    read.skipped.push(...part.skipped);
  }
  if (found === 0)
    read.skipped.push({
      source: "qwen",
      reason: `none of ${places.join(", ")} exists (give one with --from PATH)`,
    });
  return read;
}

/** Where Qwen Code keeps memory for `context.projectRoot` and its user, in reading order (its host says). */
export function defaultQwenPlaces(context: ReaderContext): string[] {
  return qwenMemoryPlaces(context.home, context.projectRoot);
}
