import fs from "node:fs/promises";
import { z } from "zod";
import { errorMessage, resolveToolPath, type ToolContext, type ToolSpec, toolError } from "./spec.ts";

/** Lines shown when the model gives no `limit`. */
const DEFAULT_LINE_LIMIT = 2000;
/** Longer lines are cut so one minified line cannot flood the context. */
const MAX_LINE_CHARS = 2000;
/** Files above this size are not read whole; the model should use line ranges or Grep. */
const MAX_FILE_BYTES = 10 * 1024 * 1024;
/** Hard cap on the text returned by one call. */
const MAX_OUTPUT_CHARS = 100_000;

const inputSchema = z.object({
  file_path: z
    .string()
    .min(1)
    .describe("Absolute path of the file to read (relative paths resolve against the working directory)"),
  offset: z.number().int().min(1).optional().describe("First line to show, 1-based (default 1)"),
  limit: z
    .number()
    .int()
    .min(1)
    .optional()
    .describe(`How many lines to show (default ${DEFAULT_LINE_LIMIT})`),
});

/** True when the first bytes look binary (a NUL byte), as `git` and `grep` decide. */
export function looksBinary(buffer: Buffer): boolean {
  return buffer.subarray(0, 8192).includes(0);
}

/** Records a file as read in this session (the prefetch then never surfaces it again, docs/design.md#consuming-the-prefetch). */
export async function recordRead(context: ToolContext, absolutePath: string): Promise<void> {
  const entry = { readAt: context.now(), source: "read" as const };
  context.readFileState.set(absolutePath, entry);
  const real = await fs.realpath(absolutePath).catch(() => absolutePath);
  if (real !== absolutePath) context.readFileState.set(real, entry);
}

/** `Read`: a file's lines, numbered like `cat -n`, with optional line ranges. */
export const readTool: ToolSpec<z.infer<typeof inputSchema>> = {
  name: "Read",
  description:
    "Read a text file. Returns lines numbered from 1 (`N<TAB>text`). Use offset/limit for a line range of a long file.",
  inputSchema,
  readOnly: true,
  async handler(input, context) {
    const absolutePath = resolveToolPath(context, input.file_path);
    let stat: import("node:fs").Stats;
    try {
      stat = await fs.stat(absolutePath);
    } catch (error) {
      return toolError(`Read: ${absolutePath}: ${errorMessage(error)}`);
    }
    if (stat.isDirectory()) return toolError(`Read: ${absolutePath} is a directory; use Glob to list files`);
    if (stat.size > MAX_FILE_BYTES)
      return toolError(
        `Read: ${absolutePath} is ${stat.size} bytes, over the ${MAX_FILE_BYTES}-byte limit; use Grep to find the part you need`,
      );
    let buffer: Buffer;
    try {
      buffer = await fs.readFile(absolutePath);
    } catch (error) {
      return toolError(`Read: ${absolutePath}: ${errorMessage(error)}`);
    }
    if (looksBinary(buffer))
      return toolError(`Read: ${absolutePath} is a binary file (${buffer.length} bytes); not shown`);
    await recordRead(context, absolutePath);
    const text = buffer.toString("utf8");
    if (text === "") return { content: `(${absolutePath} is empty)` };
    const lines = text.replace(/\r?\n$/, "").split(/\r?\n/);
    const offset = input.offset ?? 1;
    const limit = input.limit ?? DEFAULT_LINE_LIMIT;
    if (offset > lines.length)
      return toolError(`Read: ${absolutePath} has ${lines.length} lines; offset ${offset} is past the end`);
    const shown = lines.slice(offset - 1, offset - 1 + limit);
    let output = "";
    let cut = false;
    for (const [index, line] of shown.entries()) {
      const body = line.length > MAX_LINE_CHARS ? `${line.slice(0, MAX_LINE_CHARS)}… (line cut)` : line;
      const numbered = `${String(offset + index).padStart(6)}\t${body}\n`;
      if (output.length + numbered.length > MAX_OUTPUT_CHARS) {
        cut = true;
        break;
      }
      output += numbered;
    }
    const lastShown = offset - 1 + (cut ? output.split("\n").length - 1 : shown.length);
    if (cut || lastShown < lines.length)
      output += `(showing lines ${offset}-${lastShown} of ${lines.length}; use offset/limit to read more)\n`;
    return { content: output };
  },
};
