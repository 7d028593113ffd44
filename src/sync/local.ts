import { createHash } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import { parseFrontmatter } from "../memdir/format/frontmatter.ts";
import {
  applyIndexChanges,
  formatIndexLine,
  INDEX_FILE,
  indexLimitsExceeded,
  parseIndex,
} from "../memdir/format/index-file.ts";
import { defaultTitle, MAX_HOOK_CHARS, oneLine, shorten } from "../memdir/format/memory-names.ts";
import { utf8OrNull } from "../memdir/fs/regular-file.ts";
import { fileNameRefusal, memoryFileRefusal } from "../memdir/fs/safe-path.ts";
import type { ProgressSink } from "../types.ts";
import { isRegularMode } from "./repository.ts";

// The memory dir's side of a sync: which files it holds (and which never leave it), their git
// blob ids, and MEMORY.md rebuilt after a merge (docs/design.md#sync).

/** One memory file as read for a sync. */
export interface LocalFile {
  text: string;
  /** Its git blob id, computed here, so unchanged files cost no git call. */
  blob: string;
}

/** The git blob id of a text (`sha1("blob <bytes>\0" + bytes)`). */
export function blobId(text: string | Buffer): string {
  const bytes = typeof text === "string" ? Buffer.from(text, "utf8") : text;
  return createHash("sha1").update(`blob ${bytes.length}\0`).update(bytes).digest("hex");
}

/** True when a memory's frontmatter says `visibility: private` (or `metadata: {visibility: private}`): it never leaves the machine. */
export function isPrivate(text: string): boolean {
  if (!/^\uFEFF?---/.test(text) || !/visibility/.test(text)) return false;
  // Claude Code writes its own keys under `metadata:`, where memdir reads `type` too (docs/format.md).
  const data = parseFrontmatter(text).data;
  const metadata = data.metadata;
  const nested =
    metadata !== null && typeof metadata === "object"
      ? (metadata as Record<string, unknown>).visibility
      : undefined;
  return [data.visibility, nested].some(
    (value) => typeof value === "string" && value.trim().toLowerCase() === "private",
  );
}

/**
 * Why a file name from the remote is not written here, or null when it may be: only memory
 * files (`*.md`, not MEMORY.md, no dot-folder), names the index and common file systems carry,
 * regular files (no symbolic link or submodule), and for the user's remote nothing under `team/`.
 */
export function incomingRefusal(file: string, mode: string, excludeTeam: boolean): string | null {
  if (!isRegularMode(mode)) return "not a regular file in the remote";
  if (excludeTeam && file.startsWith("team/")) return "team memory syncs with the team remote";
  if (path.posix.basename(file).toLowerCase() === INDEX_FILE.toLowerCase()) return "not a memory file";
  return memoryFileRefusal(file) ?? fileNameRefusal(file);
}

/** What a sync reads from the memory dir: its memory files, and the files held back with why. */
export interface LocalSide {
  files: Map<string, LocalFile>;
  held: Map<string, string>;
  index: string;
}

/**
 * Reads every memory file of `memoryDir` (not MEMORY.md, nothing in a dot-folder, no temp files;
 * with `excludeTeam`, nothing under `team/`). A symbolic link or a `visibility: private` memory
 * is held: it never leaves the machine.
 */
export async function readLocalSide(
  memoryDir: string,
  excludeTeam: boolean,
  progress?: ProgressSink,
): Promise<LocalSide> {
  const files = new Map<string, LocalFile>();
  const held = new Map<string, string>();
  const entries = await fs.readdir(memoryDir, { recursive: true, withFileTypes: true }).catch(() => []);
  const wanted: string[] = [];
  for (const entry of entries) {
    const parent = (entry as { parentPath?: string }).parentPath ?? (entry as { path: string }).path;
    const file = path.relative(memoryDir, path.join(parent, entry.name)).split(path.sep).join("/");
    if (file.split("/").some((segment) => segment.startsWith("."))) continue;
    if (excludeTeam && (file === "team" || file.startsWith("team/"))) continue;
    if (!file.toLowerCase().endsWith(".md") || file === INDEX_FILE) continue;
    if (entry.isSymbolicLink()) held.set(file, "a symbolic link: only regular files are synced");
    else if (entry.isFile()) wanted.push(file);
  }
  // Read side by side in batches: one read at a time cost 0.5 s at 2,000 memories on a loaded box.
  for (let start = 0; start < wanted.length; start += READ_BATCH) {
    // Told per batch (docs/design.md#progress): at 20,000 memories this read and hash takes seconds.
    progress?.("reading and hashing memory files", start, wanted.length);
    const batch = wanted.slice(start, start + READ_BATCH);
    const contents = await Promise.all(
      batch.map((file) => fs.readFile(path.join(memoryDir, file)).catch(() => null)),
    );
    batch.forEach((file, i) => {
      const bytes = contents[i];
      if (bytes === null) return;
      const text = utf8OrNull(bytes);
      if (text === null)
        held.set(
          file,
          "not valid UTF-8 text: not synced (memdir never rewrites bytes it cannot read as text)",
        );
      else if (isPrivate(text)) held.set(file, "visibility: private (never leaves this machine)");
      else files.set(file, { text, blob: blobId(text) });
    });
  }
  if (wanted.length > 0) progress?.("reading and hashing memory files", wanted.length, wanted.length);
  const index = await fs.readFile(path.join(memoryDir, INDEX_FILE), "utf8").catch(() => "");
  return { files, held, index };
}

const READ_BATCH = 64;

/**
 * MEMORY.md after a merge, never merged as text: the local index with the lines of `removed`
 * files dropped and a line added for each `added` file, made from that file's own frontmatter
 * (its `title` when it has one, else a title made from its name, and its description).
 * Nothing of the remote's MEMORY.md is read: its text passed no check, so a line there could
 * carry an instruction into every session's context (docs/sync.md). Lines are added only while
 * the index stays within its load limits; the others are counted in `leftOut` (their files are
 * still there, and recall still finds them).
 */
export function rebuildIndex(
  local: string,
  changes: { added: readonly { file: string; text: string }[]; removed: ReadonlySet<string> },
): { text: string; leftOut: number } {
  const listed = new Set(parseIndex(local).map((entry) => entry.file));
  const kept = applyIndexChanges(local, { remove: changes.removed });
  const trimmed = kept.trim();
  let lines = trimmed === "" ? 0 : trimmed.split("\n").length;
  let bytes = Buffer.byteLength(trimmed, "utf8");
  const add: { file: string; title: string; hook: string }[] = [];
  let leftOut = 0;
  for (const { file, text: memory } of changes.added) {
    if (listed.has(file)) continue;
    const data = parseFrontmatter(memory).data;
    const description = oneLine(String(data.description ?? ""));
    const named = oneLine(String(data.title ?? ""));
    const line = {
      file,
      title: shorten(named, 60) || defaultTitle(file, description),
      hook: shorten(description, MAX_HOOK_CHARS),
    };
    const added = Buffer.byteLength(formatIndexLine(line), "utf8") + (lines === 0 ? 0 : 1);
    if (indexLimitsExceeded(lines + 1, bytes + added).length > 0) {
      leftOut++;
      continue;
    }
    lines++;
    bytes += added;
    add.push(line);
  }
  return { text: applyIndexChanges(kept, { add }), leftOut };
}
