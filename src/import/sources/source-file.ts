import fs from "node:fs/promises";
import { MemdirError } from "../../errors.ts";

/**
 * The text of a source file, or a `MemdirError` naming the kind and the path: `not-found` (with
 * the hint to give `--from`), `invalid-input` for a folder, `io` otherwise.
 */
export async function readSourceText(kind: string, from: string): Promise<string> {
  const stat = await fs.stat(from).catch((error: NodeJS.ErrnoException) => {
    throw new MemdirError(
      error.code === "ENOENT" ? "not-found" : "io",
      `import: ${kind}: cannot read ${from}: ${error.code ?? error.message}` +
        (error.code === "ENOENT" ? " (give the file with --from PATH)" : ""),
      { cause: error },
    );
  });
  if (!stat.isFile()) throw new MemdirError("invalid-input", `import: ${kind}: ${from} is not a file`);
  return fs.readFile(from, "utf8");
}

/** The file's modification time (ms), for sources that date nothing themselves; null when unknown. */
export async function fileTime(file: string): Promise<number | null> {
  return fs
    .stat(file)
    .then((stat) => stat.mtimeMs)
    .catch(() => null);
}
