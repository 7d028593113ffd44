import { z } from "zod";
import { memoryFileSchema } from "./shared.ts";
import { defineMemoryTool, type MemoryToolSpec, memoryDirOf, recordedWrite } from "./spec.ts";

const inputSchema = z.object({ file: memoryFileSchema });

const outputSchema = z.object({
  file: z.string().describe("Path relative to the memory directory"),
  path: z.string().describe("Absolute path that was removed"),
});

export type DeleteToolInput = z.infer<typeof inputSchema>;
export type DeleteToolOutput = z.infer<typeof outputSchema>;

/** `memory_delete`: removes one memory file and its line in `MEMORY.md`, through the single writer. */
export function createDeleteTool(): MemoryToolSpec<DeleteToolInput, DeleteToolOutput> {
  return defineMemoryTool({
    name: "memory_delete",
    title: "Delete a memory",
    description:
      "Delete one saved memory and its line in the MEMORY.md index. Use it when the user asks you to forget " +
      "something, or when a memory is wrong or contradicted; to correct a memory, prefer memory_update.",
    inputSchema,
    outputSchema,
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    async run(input, context) {
      const memoryDir = memoryDirOf(context, "memory_delete");
      if (typeof memoryDir !== "string") return memoryDir;
      const [{ removeMemory, resolveMemoryTarget }, { INDEX_FILE }] = await Promise.all([
        import("../../memdir/write/write.ts"),
        import("../../memdir/format/index-file.ts"),
      ]);
      // Recorded as the writer names the file (an absolute path inside the memory dir, either
      // Unicode spelling), so the history copies the file the delete removes.
      const target = await resolveMemoryTarget(memoryDir, input.file);
      // One history entry: `memdir undo` brings the memory and its index line back (docs/design.md#undo).
      const removed = await recordedWrite(
        context,
        memoryDir,
        {
          kind: "save",
          via: "memory_delete",
          message: (result) => `deleted ${result?.file ?? input.file}`,
          files: [target.file, INDEX_FILE],
        },
        () => removeMemory(memoryDir, target.file),
      );
      context.readFileState.delete(removed.path);
      return { ok: true, output: removed, text: `Deleted ${removed.file} and its line in MEMORY.md` };
    },
  });
}
