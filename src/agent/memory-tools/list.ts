import { z } from "zod";
import { type Memdir, memdirFor } from "../../memdir/instance.ts";
import { manifestLine, SCAN_DEFAULT_LIMIT, scanHeaders } from "../../memdir/scan/scan.ts";
import { memorySummary, memorySummarySchema, memoryTypeSchema } from "./shared.ts";
import { defineMemoryTool, type MemoryToolSpec, memoryDirOf } from "./spec.ts";

const inputSchema = z.object({
  type: memoryTypeSchema.optional().describe("Only memories of this type"),
});

const outputSchema = z.object({
  memories: z.array(memorySummarySchema).describe("Newest first"),
  total: z.number().int().describe("Memories in the directory (of the requested type)"),
});

export type ListToolInput = z.infer<typeof inputSchema>;
export type ListToolOutput = z.infer<typeof outputSchema>;

/** `memory_list`: the header of every memory (type, description, age), newest first (docs/design.md#header-scan). */
export function createListTool(
  options: { memdir?: Memdir } = {},
): MemoryToolSpec<ListToolInput, ListToolOutput> {
  return defineMemoryTool({
    name: "memory_list",
    title: "List memories",
    description:
      "List the saved memories, newest first: file, type, one-line description and age of each (not their " +
      `content; use memory_read for one memory or memory_recall to find relevant ones). Shows at most ${SCAN_DEFAULT_LIMIT}.`,
    inputSchema,
    outputSchema,
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    async run(input, context) {
      const memoryDir = memoryDirOf(context, "memory_list");
      if (typeof memoryDir !== "string") return memoryDir;
      const headers = (
        await scanHeaders(memoryDir, { signal: context.signal, memdir: memdirFor(options.memdir, memoryDir) })
      ).filter((header) => input.type === undefined || header.type === input.type);
      const shown = headers.slice(0, SCAN_DEFAULT_LIMIT);
      const now = context.now();
      const more =
        headers.length > shown.length ? `\n(${headers.length - shown.length} older not shown)` : "";
      const text =
        shown.length === 0
          ? `No memories${input.type ? ` of type ${input.type}` : ""} in ${memoryDir}`
          : `${shown.map(manifestLine).join("\n")}${more}`;
      return {
        ok: true,
        output: { memories: shown.map((header) => memorySummary(header, now)), total: headers.length },
        text,
      };
    },
  });
}
