import fs from "node:fs/promises";
import { z } from "zod";
import { MemdirError } from "../../errors.ts";
import { parseFrontmatter } from "../../memdir/frontmatter.ts";
import { resolveInsideMemoryDir } from "../../memdir/safe-path.ts";
import { errorMessage } from "../tools/spec.ts";
import { memoryFileSchema, memorySummary, memorySummarySchema } from "./shared.ts";
import { defineMemoryTool, type MemoryToolSpec, memoryDirOf } from "./spec.ts";

/** A memory is a short note; anything longer is cut here so one file cannot flood the context. */
const MAX_READ_CHARS = 100_000;

const inputSchema = z.object({ file: memoryFileSchema });

const outputSchema = memorySummarySchema.extend({
  content: z.string().describe("The memory's text after its frontmatter"),
  text: z.string().describe("The whole file as on disk, frontmatter included"),
  issues: z.array(z.string()).describe("Problems with the frontmatter, if any"),
});

export type ReadToolInput = z.infer<typeof inputSchema>;
export type ReadToolOutput = z.infer<typeof outputSchema>;

/** The text of a memory file inside the memory dir, or a readable refusal (never a throw for expected cases). */
export async function readMemoryFile(
  memoryDir: string,
  file: string,
): Promise<
  { ok: true; file: string; path: string; text: string; mtimeMs: number } | { ok: false; message: string }
> {
  const target = await resolveInsideMemoryDir(memoryDir, file);
  if (!target.ok) return { ok: false, message: `memdir: read: ${target.reason}` };
  if (!target.file.toLowerCase().endsWith(".md"))
    return { ok: false, message: `memdir: read: memory files end in .md: ${JSON.stringify(file)}` };
  try {
    const stat = await fs.stat(target.path);
    if (stat.isDirectory())
      return { ok: false, message: `memdir: read: ${target.file} is a folder, not a memory` };
    const text = await fs.readFile(target.path, "utf8");
    return { ok: true, file: target.file, path: target.path, text, mtimeMs: stat.mtimeMs };
  } catch (error) {
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
      const read = await readMemoryFile(memoryDir, input.file);
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
