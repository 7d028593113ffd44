import fs from "node:fs";
import path from "node:path";

/**
 * The text of a memory file: frontmatter (`name` first when given, then `description` and
 * `type`) and `body` with a newline added.
 *
 * @example
 * writeTree(dir, { "MEMORY.md": "- [A](a.md) — a\n", "a.md": memory("tests hit a real db", "Never mock it.") });
 */
export function memory(description: string, body = "", type = "feedback", name?: string): string {
  const named = name === undefined ? "" : `name: ${name}\n`;
  return `---\n${named}description: ${description}\ntype: ${type}\n---\n${body}\n`;
}

/**
 * Writes `text` (usually made by {@link memory}) as the memory file `file` under `dir`, folders
 * made as needed, with modification time `mtime` when given. Returns the file's path.
 */
export function writeMemory(dir: string, file: string, text: string, mtime?: Date): string {
  const full = path.join(dir, file);
  fs.mkdirSync(path.dirname(full), { recursive: true });
  fs.writeFileSync(full, text);
  if (mtime) fs.utimesSync(full, mtime, mtime);
  return full;
}
