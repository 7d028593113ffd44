import type { Dirent } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";

/** Folders no search wants by default (a pattern naming them explicitly still enters them). */
const SKIPPED_FOLDERS = new Set([".git", "node_modules"]);

export interface WalkedFile {
  /** Path relative to the walk root, with `/` separators. */
  relative: string;
  absolute: string;
}

/**
 * Every regular file under `root`, depth first. Symlinked folders are not followed (no loops);
 * unreadable folders are skipped. `enter(relativeFolder)` may veto a folder.
 */
export async function* walkFiles(
  root: string,
  options: { signal?: AbortSignal; enter?: (relativeFolder: string, name: string) => boolean } = {},
): AsyncGenerator<WalkedFile> {
  const pending: string[] = [""];
  while (pending.length > 0) {
    options.signal?.throwIfAborted();
    const relativeFolder = pending.pop()!;
    let entries: Dirent[];
    try {
      entries = await fs.readdir(path.join(root, relativeFolder), { withFileTypes: true });
    } catch {
      continue;
    }
    entries.sort((a, b) => (a.name < b.name ? 1 : -1));
    for (const entry of entries) {
      const relative = relativeFolder === "" ? entry.name : `${relativeFolder}/${entry.name}`;
      if (entry.isDirectory()) {
        const allowed = options.enter
          ? options.enter(relative, entry.name)
          : !SKIPPED_FOLDERS.has(entry.name);
        if (allowed) pending.push(relative);
      } else if (entry.isFile() || entry.isSymbolicLink()) {
        yield { relative, absolute: path.join(root, relative) };
      }
    }
  }
}

/** The default folder veto, relaxed for folders the pattern names explicitly. */
export function defaultEnter(pattern: string | undefined): (relativeFolder: string, name: string) => boolean {
  return (_relative, name) => !SKIPPED_FOLDERS.has(name) || (pattern?.includes(name) ?? false);
}
