import { z } from "zod";
import type { SaveMemoryResult } from "../../memdir/write/write.ts";
import type { ToolContext } from "../tools/spec.ts";
import type { SessionTwin } from "./session-twin.ts";
import { memoryFileSchema, memoryTypeSchema } from "./shared.ts";
import {
  defineMemoryTool,
  type MemoryToolSpec,
  type MemoryToolsOptions,
  memoryDirOf,
  recordedWrite,
} from "./spec.ts";

const inputSchema = z.object({
  type: memoryTypeSchema.describe(
    "user: who the user is and their preferences; feedback: a correction or rule about how to work; " +
      "project: a decision, goal or constraint not visible in the code; reference: where outside information lives",
  ),
  description: z
    .string()
    .trim()
    .min(1)
    .max(300)
    .describe("One line saying when this memory is useful; recall matches on it first"),
  content: z
    .string()
    .trim()
    .min(1)
    .describe(
      "The memory itself. For feedback and project memories, add a line starting with Why: giving the reason",
    ),
  file: memoryFileSchema
    .optional()
    .describe(
      "File name for the new memory (refused when it exists: use memory_update); omit to derive one from type and description",
    ),
});

const outputSchema = z.object({
  file: z.string().describe("Path relative to the memory directory"),
  path: z.string().describe("Absolute path on disk"),
  created: z
    .boolean()
    .describe(
      "True when written. False when a memory saved in this session already says it: nothing was written and `file` names that memory (memory_save never replaces a memory; memory_update does)",
    ),
  indexWarning: z.string().optional().describe("Set when MEMORY.md is now over its load limits"),
  warning: z
    .string()
    .optional()
    .describe("Set when the memory holds instruction-like text (saved, since the save was explicit)"),
});

export type SaveToolInput = z.infer<typeof inputSchema>;
export type SaveToolOutput = z.infer<typeof outputSchema>;

/**
 * `memory_save`: one memory through the single writer (docs/design.md#the-single-writer) — its own file with
 * frontmatter and its line in `MEMORY.md`, written atomically; secrets and paths outside the
 * memory dir are refused.
 */
export function createSaveTool(options: MemoryToolsOptions): MemoryToolSpec<SaveToolInput, SaveToolOutput> {
  return defineMemoryTool({
    name: "memory_save",
    title: "Save a memory",
    description:
      "Save something worth remembering in future conversations: who the user is, a rule or correction they " +
      "gave, a project decision or constraint, or where outside information lives. Save at once when the user " +
      "asks you to remember something. Do not save what the code, git history or file tree already tell, " +
      "temporary task state, or secrets (they are refused). This only adds memories; to change one, use memory_update.",
    inputSchema,
    outputSchema,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    async run(input, context) {
      const memoryDir = memoryDirOf(context, "memory_save");
      if (typeof memoryDir !== "string") return memoryDir;
      await options.prepareMemoryDir?.();
      if (options.sessionStartedMs !== undefined && input.file === undefined) {
        const { findSessionTwin, sessionWindowStart } = await import("./session-twin.ts");
        const twin = await findSessionTwin(
          memoryDir,
          { description: input.description, body: input.content },
          sessionWindowStart(options.sessionStartedMs, context.now()),
          options.memdir,
        );
        if (twin !== null) return sessionTwinOutcome(twin);
      }
      // The writer loads on the first write: the MCP handshake does not wait for it (bench/mcp-startup.ts).
      const [{ checkSaveInput, resolveMemoryTarget, saveMemory }, { INDEX_FILE }] = await Promise.all([
        import("../../memdir/write/write.ts"),
        import("../../memdir/format/index-file.ts"),
      ]);
      // The file as the writer names it, which the history records (an absolute path inside the memory dir, either Unicode spelling).
      const file =
        input.file === undefined ? undefined : (await resolveMemoryTarget(memoryDir, input.file)).file;
      const memory = {
        type: input.type,
        description: input.description,
        body: input.content,
        ...(file !== undefined ? { file } : {}),
        // Never replaces: a replacing write is memory_update's, which says it is destructive.
        replace: false,
      };
      // A refused save (a credential) leaves the memory dir as it was: no history is begun for it.
      checkSaveInput(memory);
      const saved = await recordedWrite(
        context,
        memoryDir,
        {
          kind: "save",
          via: "memory_save",
          message: (result) => (result ? `saved ${result.file}` : "memory_save"),
          files: [...(file !== undefined ? [file] : []), INDEX_FILE],
          madeFiles: (result) => [result.file],
        },
        () => saveMemory(memoryDir, memory, { origin: context.origin }),
      );
      return savedOutcome(saved, context);
    },
  });
}

/**
 * What `memory_save` returns when this session already saved the memory (docs/design.md#one-explicit-save):
 * nothing written, and the model told which memory holds it and how to change it.
 */
function sessionTwinOutcome(twin: SessionTwin) {
  const by = twin.savedBy === "user" ? " (memdir saved it when the user asked to remember it)" : "";
  return {
    ok: true as const,
    output: { file: twin.file, path: twin.path, created: false },
    text:
      `Already saved in this session as ${twin.file}${by}; nothing written. ` +
      "To add to it or change it, use memory_update on that file.",
  };
}

/**
 * What `memory_save` and `memory_update` return for a write, and what they record: the model
 * wrote the memory, so it knows it, and recall in this session need not surface it back.
 */
export function savedOutcome(saved: SaveMemoryResult, context: ToolContext) {
  context.filesWritten.push(saved.path);
  context.readFileState.set(saved.path, { readAt: context.now(), source: "read" });
  const warning = [saved.indexWarning, saved.warning]
    .filter(Boolean)
    .map((line) => `\nWarning: ${line}`)
    .join("");
  return {
    ok: true as const,
    output: {
      file: saved.file,
      path: saved.path,
      created: saved.created,
      ...(saved.indexWarning ? { indexWarning: saved.indexWarning } : {}),
      ...(saved.warning ? { warning: saved.warning } : {}),
    },
    text: `${saved.created ? "Saved" : "Updated"} ${saved.file} (${saved.path}) and its line in MEMORY.md${warning}`,
  };
}
