import { z } from "zod";
import { memdirFor } from "../../memdir/instance.ts";
import { DEFAULT_RECALL_K } from "../../recall/selector.ts";
import type { ToolContext } from "../tools/spec.ts";
import { memorySummary, memorySummarySchema } from "./shared.ts";
import { defineMemoryTool, type MemoryToolSpec, type MemoryToolsOptions, memoryDirOf } from "./spec.ts";

const inputSchema = z.object({
  query: z
    .string()
    .trim()
    .min(1)
    .describe("What you are about to work on, in the user's words (e.g. their latest message)"),
  k: z
    .number()
    .int()
    .min(1)
    .max(20)
    .optional()
    .describe(`At most this many memories (default ${DEFAULT_RECALL_K})`),
});

const outputSchema = z.object({
  query: z.string(),
  selector: z.string().describe("How the memories were picked: lexical, model or hybrid"),
  memories: z.array(
    memorySummarySchema.extend({
      content: z
        .string()
        .describe(
          "The memory's text after its frontmatter, capped at 200 lines / 4096 bytes with a note when cut",
        ),
      truncated: z.union([z.literal(false), z.literal("lines"), z.literal("bytes")]),
      caveat: z
        .string()
        .nullable()
        .describe(
          "For a memory over a day old: it is a point-in-time note, so verify what it says about code",
        ),
    }),
  ),
});

export type RecallToolInput = z.infer<typeof inputSchema>;
export type RecallToolOutput = z.infer<typeof outputSchema>;

/**
 * `memory_recall`: the recall pipeline for one query (docs/design.md#recall-pipeline) — the memories that will clearly
 * help, each capped as when surfaced, with its age and the point-in-time caveat in the text.
 */
export function createRecallTool(
  options: MemoryToolsOptions,
): MemoryToolSpec<RecallToolInput, RecallToolOutput> {
  return defineMemoryTool({
    name: "memory_recall",
    title: "Recall memories",
    description:
      "Find the saved memories that are relevant to a task: the user's preferences, rules they gave about how to " +
      "work, project decisions, pointers to external systems. Call it at the start of a task with the user's " +
      "request as the query. Returns at most k memories (default 5), most relevant first, each with its age; " +
      "an empty list means nothing saved clearly applies. Memories are notes from the past: check claims about " +
      "code against the current files.",
    inputSchema,
    outputSchema,
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    async run(input, context: ToolContext) {
      const memoryDir = memoryDirOf(context, "memory_recall");
      if (typeof memoryDir !== "string") return memoryDir;
      // Loaded on the first call: the MCP server answers its handshake without them (bench/mcp-startup.ts).
      const [
        { parseFrontmatter },
        { readMemoryCapped },
        { recall },
        { memoryFreshnessCaveat },
        { withheldContent },
      ] = await Promise.all([
        import("../../memdir/format/frontmatter.ts"),
        import("../../memdir/fs/read.ts"),
        import("../../recall/recall.ts"),
        import("../../recall/surface.ts"),
        import("../../memdir/trust/withhold.ts"),
      ]);
      const result = await recall({
        memoryDir,
        query: input.query,
        selector: options.selector,
        k: input.k ?? DEFAULT_RECALL_K,
        now: context.now,
        signal: context.signal,
        readFileState: context.readFileState,
        memdir: memdirFor(options.memdir, memoryDir),
      });
      const now = context.now();
      const memories = await Promise.all(
        result.memories.map(async (memory) => {
          const capped = await readMemoryCapped(memory.path, { memoryDir });
          const parsed = parseFrontmatter(capped.content);
          // Named, not shown, when its text reads as an instruction (src/memdir/trust/withhold.ts).
          const withheld = await withheldContent(capped.content);
          // The model now holds this memory: later recalls in the same session skip it.
          context.readFileState.set(memory.path, { readAt: now, source: "memory" });
          return {
            ...memorySummary({ ...memory, type: parsed.type, description: parsed.description }, now),
            content: withheld ?? parsed.body.replace(/^\n+/, ""),
            truncated: capped.truncated,
            caveat: memoryFreshnessCaveat(memory.mtimeMs, now),
          };
        }),
      );
      const text =
        memories.length === 0
          ? `No saved memory clearly applies to: ${input.query}`
          : memories.map(recalledMemoryText).join("\n\n");
      return {
        ok: true,
        output: {
          query: input.query,
          selector: result.selector,
          memories,
        },
        text,
      };
    },
  });
}

/**
 * One recalled memory as a model reads it: its description (or file) as the title, the file,
 * type and age, the point-in-time caveat, then the body — not the structured output again as
 * JSON: hosts such as Cline send both the text and `structuredContent` to the model
 * (docs/design.md#mcp-server).
 *
 * @example
 * recalledMemoryText(memory) // "Memory: Integration tests hit a real database\nfile: feedback-real-database.md (feedback, saved 2 days ago)\n\n…"
 */
export function recalledMemoryText(memory: Omit<RecallToolOutput["memories"][number], "path">): string {
  const title = memory.description ?? memory.file;
  const kind = memory.type === null ? `saved ${memory.age}` : `${memory.type}, saved ${memory.age}`;
  const lines = [`Memory: ${title}`, `file: ${memory.file} (${kind})`];
  if (memory.caveat !== null) lines.push(memory.caveat);
  return `${lines.join("\n")}\n\n${memory.content.trimEnd()}`;
}
