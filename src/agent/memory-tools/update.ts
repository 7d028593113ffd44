import { z } from "zod";
import { parseFrontmatter } from "../../memdir/format/frontmatter.ts";
import { readTextInside } from "../../memdir/fs/open-safely.ts";
import { savedOutcome } from "./save.ts";
import { memoryFileSchema, memoryTypeSchema } from "./shared.ts";
import {
  defineMemoryTool,
  type MemoryToolSpec,
  type MemoryToolsOptions,
  memoryDirOf,
  recordedWrite,
} from "./spec.ts";

const inputSchema = z.object({
  file: memoryFileSchema.describe("The memory to replace, as memory_list or memory_recall name it"),
  content: z.string().trim().min(1).describe("The memory's new text (it replaces the old text whole)"),
  description: z
    .string()
    .trim()
    .min(1)
    .max(300)
    .optional()
    .describe("A new one-line description; omit to keep the current one"),
  type: memoryTypeSchema.optional().describe("A new type; omit to keep the current one"),
});

const outputSchema = z.object({
  file: z.string().describe("Path relative to the memory directory"),
  path: z.string().describe("Absolute path on disk"),
  created: z.boolean().describe("Always false: an update replaces an existing memory"),
  indexWarning: z.string().optional().describe("Set when MEMORY.md is now over its load limits"),
  warning: z
    .string()
    .optional()
    .describe("Set when the memory holds instruction-like text (saved, since the update was explicit)"),
});

export type UpdateToolInput = z.infer<typeof inputSchema>;
export type UpdateToolOutput = z.infer<typeof outputSchema>;

/**
 * `memory_update`: replaces an existing memory through the single writer (docs/design.md#the-single-writer).
 * A tool of its own, apart from `memory_save`, so that the one write that destroys text is
 * marked destructive and a client can ask before it runs (docs/design.md#mcp-server).
 */
export function createUpdateTool(
  options: MemoryToolsOptions,
): MemoryToolSpec<UpdateToolInput, UpdateToolOutput> {
  return defineMemoryTool({
    name: "memory_update",
    title: "Update a memory",
    description:
      "Replace the text of an existing memory (and optionally its description or type) when it is out of date, " +
      "wrong, or should absorb a new detail. Prefer this to adding a second memory on the same subject. " +
      "The old text is replaced, so include everything that should stay.",
    inputSchema,
    outputSchema,
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    async run(input, context) {
      const memoryDir = memoryDirOf(context, "memory_update");
      if (typeof memoryDir !== "string") return memoryDir;
      await options.prepareMemoryDir?.();
      const [{ checkSaveInput, resolveMemoryTarget, saveMemory }, { INDEX_FILE }] = await Promise.all([
        import("../../memdir/write/write.ts"),
        import("../../memdir/format/index-file.ts"),
      ]);
      // The memory as the writer names it (either Unicode spelling, an absolute path inside the
      // memory dir): what is read here, written and recorded in the history is that one file.
      const target = await resolveMemoryTarget(memoryDir, input.file);
      const existing = await readTextInside(memoryDir, target.path).catch((error: unknown) => {
        if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
        throw error;
      });
      if (existing === null)
        return {
          ok: false,
          message: `memdir: memory_update: no memory ${target.file} in ${memoryDir}; to add one, use memory_save`,
        };
      const current = parseFrontmatter(existing);
      const type = input.type ?? current.type;
      const description = input.description ?? current.description;
      if (!type || !description)
        return {
          ok: false,
          message: `memdir: memory_update: ${target.file} has no ${type ? "description" : "type"} to keep; pass one`,
        };
      const memory = { file: target.file, type, description, body: input.content, replace: true };
      // A refused update (a credential, a control character it adds) leaves the memory dir as it
      // was: no history is begun for it. What the memory already holds is no refusal: `existing`.
      checkSaveInput(memory, existing);
      // One history entry: `memdir undo` brings the replaced text back (docs/design.md#undo).
      const saved = await recordedWrite(
        context,
        memoryDir,
        {
          kind: "save",
          via: "memory_update",
          message: (result) => (result ? `updated ${result.file}` : "memory_update"),
          files: [target.file, INDEX_FILE],
        },
        () => saveMemory(memoryDir, memory, { origin: context.origin }),
      );
      return savedOutcome(saved, context);
    },
  });
}
