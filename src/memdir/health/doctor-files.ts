import fs from "node:fs/promises";
import path from "node:path";
import { MEMORY_FILE_MAX_BYTES, MEMORY_MAX_BYTES } from "../fs/read.ts";
import { utf8OrNull } from "../fs/regular-file.ts";
import { escapeControlCharacters, hasControlCharacter } from "../fs/safe-path.ts";
import { isMarkdownFileName } from "../scan/scan-list.ts";

/** A bad memory file `memdir doctor` reports (docs/design.md#reading-files, bad input): recall copes, the user should know. */
export interface FileIssue {
  code: "binary" | "invalid-utf8" | "too-large" | "unreadable" | "bad-link" | "unsafe-name";
  /** Relative to the memory dir. */
  file: string;
  message: string;
}

/**
 * Binary content, a huge size or invalid UTF-8 in one memory file's bytes; `null` when fine.
 * Recall still reads such files, but not as their author meant.
 *
 * @example
 * fileContentIssue("dump.md", fs.readFileSync(p)) // {code: "binary", message: "dump.md looks like a binary file …"}
 */
export function fileContentIssue(file: string, bytes: Uint8Array): FileIssue | null {
  if (bytes.subarray(0, 8192).includes(0)) {
    return {
      code: "binary",
      file,
      message: `${file} looks like a binary file (it holds NUL bytes), not a markdown memory; move it out of the memory directory`,
    };
  }
  if (bytes.length > MEMORY_FILE_MAX_BYTES) {
    const megabytes = (bytes.length / 1024 / 1024).toFixed(1);
    return {
      code: "too-large",
      file,
      message: `${file} is ${megabytes} MB; recall surfaces only its first ${MEMORY_MAX_BYTES} bytes, so split it or keep only what is worth remembering`,
    };
  }
  if (utf8OrNull(bytes) === null) {
    return {
      code: "invalid-utf8",
      file,
      message: `${file} is not valid UTF-8; recall shows the bad bytes as the replacement character �, so re-save it as UTF-8`,
    };
  }
  return null;
}

/**
 * `*.md` files the header scan skipped without a word — names with a control character or line
 * separator, symbolic links that loop, dangle or leave the memory dir, and files that cannot be
 * opened — each with why. `scanned` holds the
 * files the scan did return, `names` every path in the memory dir (both relative, `/`-separated;
 * see {@link listTree}). Dot-folders are left out, as the scan does.
 */
export async function skippedFileIssues(
  memoryDir: string,
  scanned: ReadonlySet<string>,
  names: readonly string[],
): Promise<FileIssue[]> {
  const issues: FileIssue[] = [];
  for (const name of [...names].sort()) {
    if (scanned.has(name) || !isMarkdownFileName(name)) continue;
    if (name.split("/").some((part) => part.startsWith("."))) continue;
    if (hasControlCharacter(name)) {
      // Shown escaped: the name itself is what forges lines (docs/design.md#header-scan).
      issues.push({
        code: "unsafe-name",
        file: name,
        message: `"${escapeControlCharacters(name)}" has a control character or line break in its name, which could forge lines where memdir shows it; recall and MEMORY.md leave it out: rename it by hand`,
      });
      continue;
    }
    const full = path.join(memoryDir, name);
    const stat = await fs.lstat(full).catch(() => null);
    if (stat === null) continue; // deleted since the scan
    if (stat.isSymbolicLink()) {
      issues.push({
        code: "bad-link",
        file: name,
        message: `${name} ${await linkProblem(full)}; recall skips it`,
      });
    } else if (stat.isFile()) {
      const failure = await fs.open(full, "r").then(
        async (handle) => {
          await handle.close();
          return null;
        },
        (error: NodeJS.ErrnoException) => error.code ?? String(error),
      );
      if (failure !== null) {
        const why = failure === "EACCES" || failure === "EPERM" ? "permission denied" : failure;
        issues.push({
          code: "unreadable",
          file: name,
          message: `${name} cannot be read (${why}); recall skips it`,
        });
      }
    }
  }
  return issues;
}

async function linkProblem(linkPath: string): Promise<string> {
  const code = await fs.realpath(linkPath).then(
    () => null,
    (error: NodeJS.ErrnoException) => error.code ?? "unknown error",
  );
  if (code === null) return "is a symbolic link pointing outside the memory directory";
  if (code === "ELOOP") return "is a symbolic link loop";
  if (code === "ENOENT") return "is a symbolic link to a file that does not exist";
  return `is a symbolic link that cannot be followed (${code})`;
}

/** Every path below `memoryDir`, relative and `/`-separated (none when it cannot be read). */
export async function listTree(memoryDir: string): Promise<string[]> {
  const names = await fs.readdir(memoryDir, { recursive: true }).catch(() => [] as string[]);
  return names.map((name) => String(name).split(path.sep).join("/"));
}
