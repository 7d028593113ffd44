import fs from "node:fs/promises";
import path from "node:path";
import { MemdirError } from "../../errors.ts";
import { INDEX_FILE } from "../format/index-file.ts";
import { fileNameRefusal, memoryFileRefusal, resolveInsideMemoryDir } from "../fs/safe-path.ts";

// Where a write of the single writer (write.ts) goes: each target resolved inside the memory dir
// and checked against the rules for memory files and their names (docs/design.md#path-safety).

/**
 * `file` resolved inside the memory dir and checked to be a memory file other than the index;
 * with `newName`, also a name the index and common file systems carry (a removal must still
 * reach an old file with an odd name).
 */
export async function checkedTarget(
  memoryDir: string,
  file: string,
  options: { newName?: boolean } = {},
): Promise<{ file: string; path: string }> {
  const target = await resolveOrThrow(memoryDir, file);
  const base = path.posix.basename(target.file);
  if (base.toLowerCase() === INDEX_FILE.toLowerCase()) {
    throw new MemdirError("invalid-input", `write: ${target.file} is the index, not a memory file`);
  }
  if (!base.toLowerCase().endsWith(".md")) {
    throw new MemdirError("invalid-input", `write: memory files end in .md: ${JSON.stringify(file)}`);
  }
  if (target.file.split("/").some((segment) => segment.startsWith("."))) {
    throw new MemdirError(
      "invalid-input",
      `write: ${target.file} is hidden (a name starts with "."), so recall would never see it`,
    );
  }
  if (options.newName) portableName(target.file);
  return target;
}

/**
 * Creates the memory dir when missing and checks it is safe to write in *before* the lock file
 * is created there: a memory dir that is a symlink to elsewhere must not receive even the lock.
 */
export async function prepareMemoryDir(memoryDir: string): Promise<void> {
  await fs.mkdir(memoryDir, { recursive: true });
  await resolveOrThrow(memoryDir, INDEX_FILE);
}

/**
 * `file` resolved inside the memory dir and checked to be a memory file (`*.md`, MEMORY.md
 * included, no dot-path): raw-text writes come from agents, and memdir's own state must stay
 * out of their reach (docs/design.md#path-safety).
 */
export async function memoryFileTarget(
  memoryDir: string,
  file: string,
): Promise<{ file: string; path: string }> {
  const target = await resolveOrThrow(memoryDir, file);
  const refusal = memoryFileRefusal(target.file);
  if (refusal) throw new MemdirError("invalid-input", `write: ${refusal}`);
  if (
    !isIndexFile(target.file) &&
    path.posix.basename(target.file).toLowerCase() === INDEX_FILE.toLowerCase()
  )
    throw new MemdirError(
      "invalid-input",
      `write: ${target.file} is the index's name in another case, not a memory file`,
    );
  return target;
}

/** True for an index file, spelled exactly `MEMORY.md` (`memory.md` is refused, not taken for it). */
export function isIndexFile(file: string): boolean {
  return path.posix.basename(file) === INDEX_FILE;
}

/**
 * `file` in NFC (macOS and Linux would otherwise hold two spellings of one name), refused with
 * `invalid-input` when the index or a common file system cannot carry it (`fileNameRefusal`).
 */
export function portableName(file: string): string {
  const normalized = file.normalize("NFC");
  const refusal = fileNameRefusal(normalized);
  if (refusal) throw new MemdirError("invalid-input", `write: ${refusal}`);
  return normalized;
}

/**
 * `file` resolved inside the memory dir as every operation of the writer takes it: in NFC, unless
 * only another spelling of it (as given, or NFD) names a file that exists, which is then the file
 * acted on. So a name typed in either form reaches the memory, and a save, update, delete or
 * rename never acts on one spelling while `MEMORY.md` (which compares names in NFC) changes the
 * other's line.
 */
export async function resolveOrThrow(
  memoryDir: string,
  file: string,
): Promise<{ file: string; path: string }> {
  const result = await resolveInsideMemoryDir(memoryDir, await spelledAsOnDisk(memoryDir, file));
  if (!result.ok) throw new MemdirError("path-outside", `write: ${result.reason}`);
  return { file: result.file, path: result.path };
}

/**
 * `file` in NFC, or the other spelling of it that names an existing file when only that one does:
 * every operation on a name acts on the file a user or model means, whichever form they typed.
 */
export async function spelledAsOnDisk(memoryDir: string, file: string): Promise<string> {
  if (typeof file !== "string") return file;
  const nfc = file.normalize("NFC");
  const nfd = file.normalize("NFD");
  if (nfc === nfd) return file;
  for (const spelling of new Set([nfc, file, nfd]))
    if (await exists(path.resolve(memoryDir, spelling))) return spelling;
  return nfc;
}

/**
 * `name`, or `name-2.md`, `name-3.md`… whichever does not exist yet (checked under the lock) and
 * is not in `taken` (lower-case names): an import's dry run names the files it would have written
 * by then, so it numbers as the real run does (docs/design.md#import-and-export).
 */
export async function freeTarget(
  memoryDir: string,
  name: string,
  taken: ReadonlySet<string> = new Set(),
): Promise<{ file: string; path: string }> {
  const stem = name.replace(/\.md$/, "");
  for (let n = 1; ; n++) {
    const file = n === 1 ? name : `${stem}-${n}.md`;
    const full = path.join(memoryDir, file);
    if (!taken.has(file.toLowerCase()) && !(await exists(full))) return checkedTarget(memoryDir, file);
  }
}

export async function exists(filePath: string): Promise<boolean> {
  return fs.lstat(filePath).then(
    () => true,
    () => false,
  );
}
