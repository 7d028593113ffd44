import { parseFrontmatter } from "./frontmatter.ts";

// A sync conflict (docs/design.md#sync): when the same memory changed on two machines, the other
// side's version is kept next to it as `<stem>.conflict-<short-id>.md` with `conflictOf: <file>`
// in its frontmatter. Doctor and sync report it until the user resolves it (merges and deletes it).

/** The frontmatter key that marks a conflict file. */
export const CONFLICT_KEY = "conflictOf";

/**
 * The conflict file's name for `file` and the other side's version `shortId`.
 *
 * @example conflictFileName("team/user-role.md", "3f9a2c1b") // "team/user-role.conflict-3f9a2c1b.md"
 */
export function conflictFileName(file: string, shortId: string): string {
  return `${file.replace(/\.md$/i, "")}.conflict-${shortId}.md`;
}

/**
 * `text` with `conflictOf: <file>` in its frontmatter (added at the top of an existing block, or
 * as a new block), so the other side's version reads as what it is.
 */
export function markAsConflict(text: string, file: string): string {
  const line = `${CONFLICT_KEY}: ${JSON.stringify(file)}`;
  const withoutBom = text.replace(/^\uFEFF/, "");
  if (/^---\r?\n/.test(withoutBom)) return withoutBom.replace(/^---\r?\n/, (open) => `${open}${line}\n`);
  return `---\n${line}\n---\n${withoutBom}`;
}

/** The file a memory text says it conflicts with, or null for an ordinary memory. */
export function conflictOf(text: string): string | null {
  if (!text.includes(CONFLICT_KEY)) return null;
  const value = parseFrontmatter(text).data[CONFLICT_KEY];
  return typeof value === "string" && value.trim() !== "" ? value.trim() : null;
}
