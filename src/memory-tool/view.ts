import { INDEX_FILE } from "../memdir/format/index-file.ts";
import { memoryAge } from "../recall/surface.ts";
import type { MemoryHeader } from "../types.ts";

// Line numbers padded as the SDK's reference memory tool pads them.
const LINE_NUMBER_WIDTH = 6;

/**
 * `view` of a folder (pure): the memories under it, newest first, each with its type,
 * description and age, so the model can pick what to open without reading every file
 * (docs/design.md#memory-tool). `folder` is relative to the memory dir ("" for the root).
 */
export function viewFolder(
  memoryPath: string,
  folder: string,
  headers: readonly MemoryHeader[],
  now: number,
): string {
  const inside = folder === "" ? headers : headers.filter((header) => header.file.startsWith(`${folder}/`));
  const format =
    "A memory is a Markdown file starting with frontmatter: ---, description: <when it is useful>, " +
    "type: user | feedback | project | reference, ---, then the text.";
  if (inside.length === 0)
    return `${memoryPath} holds no memories yet. ${format} memdir keeps the index ${INDEX_FILE} in step by itself.`;
  const lines = inside.map((header) => {
    const type = header.type ?? "no type";
    const description = header.description ?? "(no description)";
    return `- ${memoryPath}/${header.file.slice(folder === "" ? 0 : folder.length + 1)} [${type}, ${memoryAge(header.mtimeMs, now)}]: ${description}`;
  });
  return [
    `Here are the ${inside.length} memories in ${memoryPath}, newest first (view a file to read it; memdir keeps the index ${INDEX_FILE} in step by itself):`,
    ...lines,
    format,
  ].join("\n");
}

/** `view` of a file (pure): its lines numbered, optionally only `[first, last]` (`last` -1: to the end). */
export function viewFile(memoryPath: string, text: string, range?: readonly number[]): string {
  const lines = text.split("\n");
  let start = 0;
  let end = lines.length;
  if (range && range.length === 2) {
    start = Math.max(1, range[0]) - 1;
    end = range[1] === -1 ? lines.length : Math.min(lines.length, range[1]);
  }
  const numbered = lines
    .slice(start, end)
    .map((line, i) => `${String(start + i + 1).padStart(LINE_NUMBER_WIDTH, " ")}\t${line}`);
  return `Here's the content of ${memoryPath} with line numbers:\n${numbered.join("\n")}`;
}
