import { z } from "zod";
import { isMemdirError, MemdirError } from "../../errors.ts";
import { parseFrontmatter } from "../../memdir/format/frontmatter.ts";
import { openReadableInside } from "../../memdir/fs/open-safely.ts";
import { readRegularFile } from "../../memdir/fs/regular-file.ts";
import { resolveInsideMemoryDir } from "../../memdir/fs/safe-path.ts";
import { errorMessage } from "../tools/spec.ts";
import { memoryFileSchema, memorySummary, memorySummarySchema } from "./shared.ts";
import { defineMemoryTool, type MemoryToolSpec, memoryDirOf } from "./spec.ts";

/** A memory is a short note; anything longer is cut here so one file cannot flood the context. */
const MAX_READ_CHARS = 100_000;
// A UTF-16 unit takes at most 3 UTF-8 bytes (a 4-byte character is 2 units), so this many bytes
// always hold more than MAX_READ_CHARS characters: a 50 MB file costs a 300 KB read (docs/design.md#long-input).
const MAX_READ_BYTES = 3 * MAX_READ_CHARS + 3;

const inputSchema = z.object({ file: memoryFileSchema });

const outputSchema = memorySummarySchema.extend({
  content: z.string().describe("The memory's text after its frontmatter"),
  text: z.string().describe("The whole file as on disk, frontmatter included"),
  issues: z.array(z.string()).describe("Problems with the frontmatter, if any"),
});

export type ReadToolInput = z.infer<typeof inputSchema>;
export type ReadToolOutput = z.infer<typeof outputSchema>;

/**
 * The text of a memory file inside the memory dir (its first `maxBytes` bytes when given), or a
 * readable refusal (never a throw for expected cases). A FIFO, socket or device is refused
 * without blocking (docs/design.md#reading-files).
 */
export async function readMemoryFile(
  memoryDir: string,
  file: string,
  options: { maxBytes?: number } = {},
): Promise<
  { ok: true; file: string; path: string; text: string; mtimeMs: number } | { ok: false; message: string }
> {
  const target = await resolveInsideMemoryDir(memoryDir, file);
  if (!target.ok) return { ok: false, message: `memdir: read: ${target.reason}` };
  if (!target.file.toLowerCase().endsWith(".md"))
    return { ok: false, message: `memdir: read: memory files end in .md: ${JSON.stringify(file)}` };
  try {
    // Opened first, then checked: a folder swapped for a symlink after the path check is refused,
    // and so is anything but a regular file; only what is returned is read.
    const { bytes, stat } = await readRegularFile(target.path, {
      maxBytes: options.maxBytes,
      open: (filePath) => openReadableInside(memoryDir, filePath),
    });
    return {
      ok: true,
      file: target.file,
      path: target.path,
      text: bytes.toString("utf8"),
      mtimeMs: stat.mtimeMs,
    };
  } catch (error) {
    if (isMemdirError(error, "not-a-file"))
      return {
        ok: false,
        message: `memdir: read: ${target.file} is not a memory: ${error.message.replace(/^memdir: read: /, "")}`,
      };
    if (error instanceof MemdirError) return { ok: false, message: error.message };
    if ((error as NodeJS.ErrnoException).code === "ENOENT")
      return { ok: false, message: `memdir: read: no memory ${target.file} in ${memoryDir}` };
    throw new MemdirError("io", `read: ${target.path}: ${errorMessage(error)}`, { cause: error });
  }
}

/** `memory_read`: one memory in full, by its file name (checked like every client-given path). */
export function createReadTool(): MemoryToolSpec<ReadToolInput, ReadToolOutput> {
  return defineMemoryTool({
    name: "memory_read",
    title: "Read a memory",
    description:
      "Read one saved memory in full: its frontmatter (type, description) and its whole text. Use the file name " +
      "from memory_list, memory_recall or the MEMORY.md index, relative to the memory directory.",
    inputSchema,
    outputSchema,
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    async run(input, context) {
      const memoryDir = memoryDirOf(context, "memory_read");
      if (typeof memoryDir !== "string") return memoryDir;
      const read = await readMemoryFile(memoryDir, input.file, { maxBytes: MAX_READ_BYTES });
      if (!read.ok) return read;
      const cut = read.text.length > MAX_READ_CHARS;
      const text = cut
        ? `${read.text.slice(0, MAX_READ_CHARS)}\n(cut at ${MAX_READ_CHARS} characters; the whole file is ${read.path})\n`
        : read.text;
      const parsed = parseFrontmatter(text);
      context.readFileState.set(read.path, { readAt: context.now(), source: "read" });
      return {
        ok: true,
        output: {
          ...memorySummary(
            { ...read, type: parsed.type, description: parsed.description, modifiedMs: parsed.modifiedMs },
            context.now(),
          ),
          content: parsed.body.replace(/^\n+/, ""),
          text,
          issues: parsed.issues.map((issue) => issue.message),
        },
        text,
      };
    },
  });
}
