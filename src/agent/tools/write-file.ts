import fs from "node:fs/promises";
import path from "node:path";
import { relativeInside } from "../../memdir/fs/inside.ts";
import { indexWarningFor, updateIndex, writeMemoryText } from "../../memdir/write/write.ts";
import type { ToolContext } from "./spec.ts";

/** The real path of `target`, resolving the deepest existing ancestor (the file may not exist yet). */
export async function realPathOfTarget(target: string): Promise<string> {
  const missing: string[] = [];
  let current = path.resolve(target);
  for (;;) {
    try {
      const real = await fs.realpath(current);
      return path.join(real, ...missing.reverse());
    } catch {
      const parent = path.dirname(current);
      if (parent === current) return path.resolve(target);
      missing.push(path.basename(current));
      current = parent;
    }
  }
}

/**
 * Where in the memory dir `absolutePath` points, as a path relative to it, or null when it is
 * not aimed at the memory dir. Checked both as written and on real paths, so a symlink into the
 * memory dir still goes through the single writer (which then runs the strict checks).
 */
export async function memoryRelativePath(memoryDir: string, absolutePath: string): Promise<string | null> {
  const lexical = relativeInside(path.resolve(memoryDir), absolutePath);
  if (lexical !== null) return lexical.split(path.sep).join("/");
  const realMemoryDir = await fs.realpath(memoryDir).catch(() => path.resolve(memoryDir));
  const real = relativeInside(realMemoryDir, await realPathOfTarget(absolutePath));
  return real === null ? null : real.split(path.sep).join("/");
}

/** What a tool write did. */
export interface ToolWrite {
  writtenPath: string;
  /** Set when the write went to the memory dir (relative to it). */
  memoryFile?: string;
  created: boolean;
  /** Set when `MEMORY.md` is now over a load limit (docs/design.md#the-index: the writer is told). */
  indexWarning?: string;
  /** Set when the text holds instruction-like content an explicit writer may keep (docs/design.md#quarantine). */
  warning?: string;
}

const INDEX_FILE = "MEMORY.md";

async function readIfExists(file: string): Promise<string | null> {
  try {
    return await fs.readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
}

/**
 * Writes or changes a file for a tool. `change` gets the current text (null when the file does
 * not exist) and returns the new text. Inside the memory dir the write goes through the single
 * writer (path check, secret check, atomic; `MEMORY.md` is read and rewritten under the writer
 * lock, so an Edit never loses a line another writer added meanwhile — docs/design.md#the-single-writer); elsewhere
 * a plain write after creating the parent folders. Throws on failure; callers turn that into a
 * tool error.
 */
export async function changeFileForTool(
  context: ToolContext,
  absolutePath: string,
  change: (before: string | null) => string,
): Promise<ToolWrite> {
  if (context.memoryDir !== null) {
    const file = await memoryRelativePath(context.memoryDir, absolutePath);
    if (file === INDEX_FILE) {
      let created = false;
      const result = await updateIndex(
        context.memoryDir,
        async (before) => {
          const current = await readIfExists(path.join(context.memoryDir!, INDEX_FILE));
          created = current === null;
          return change(current === null && before === "" ? null : before);
        },
        { origin: context.origin },
      );
      const writtenPath = path.join(context.memoryDir, INDEX_FILE);
      context.filesWritten.push(writtenPath);
      return {
        writtenPath,
        memoryFile: INDEX_FILE,
        created,
        indexWarning: result.indexWarning,
        ...(result.warning ? { warning: result.warning } : {}),
      };
    }
    if (file !== null) {
      const before = await readIfExists(path.join(context.memoryDir, file));
      const saved = await writeMemoryText(context.memoryDir, file, change(before), {
        origin: context.origin,
      });
      context.filesWritten.push(saved.path);
      return {
        writtenPath: saved.path,
        memoryFile: saved.file,
        created: saved.created,
        ...(saved.warning ? { warning: saved.warning } : {}),
      };
    }
  }
  const before = await readIfExists(absolutePath);
  const text = change(before);
  await fs.mkdir(path.dirname(absolutePath), { recursive: true });
  await fs.writeFile(absolutePath, text);
  context.filesWritten.push(absolutePath);
  return { writtenPath: absolutePath, created: before === null };
}

/** Writes a whole file for a tool (see {@link changeFileForTool}). */
export async function writeFileForTool(
  context: ToolContext,
  absolutePath: string,
  text: string,
): Promise<ToolWrite> {
  const written = await changeFileForTool(context, absolutePath, () => text);
  if (written.memoryFile === INDEX_FILE && !written.indexWarning) {
    const indexWarning = indexWarningFor(text);
    if (indexWarning) written.indexWarning = indexWarning;
  }
  return written;
}
