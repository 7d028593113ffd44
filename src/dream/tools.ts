import path from "node:path";
import { z } from "zod";
import { memoryFileDecision, memoryOnlyPermissions, type PermissionCheck } from "../agent/permissions.ts";
import { createSearchTranscriptsTool } from "../agent/search-transcripts.ts";
import type { ToolSpec } from "../agent/tools/spec.ts";
import { editTool, globTool, grepTool, readTool, writeTool } from "../agent/tools.ts";
import { resolveInsideMemoryDir } from "../memdir/fs/safe-path.ts";
import { removeMemory } from "../memdir/write/write.ts";

const deleteInput = z.object({
  file_path: z.string().min(1).describe("The memory file to delete (inside the memory directory)"),
});

/**
 * `Delete`: removes one memory file and its index line through the single writer. Consolidation
 * needs it to merge duplicates and drop contradicted facts; the run is recorded in the history
 * before it starts, so every deletion can be undone. `MEMORY.md` itself cannot be deleted.
 */
export const deleteMemoryTool: ToolSpec<z.infer<typeof deleteInput>> = {
  name: "Delete",
  description:
    "Delete one memory file from the memory directory and remove its line from MEMORY.md. Use it for duplicates you merged into another file and for facts that were contradicted.",
  inputSchema: deleteInput,
  readOnly: false,
  async handler(input, context) {
    if (context.memoryDir === null) return { content: "Delete: no memory directory", isError: true };
    const requested = path.isAbsolute(input.file_path)
      ? input.file_path
      : `${context.cwd}${path.sep}${input.file_path}`;
    const inside = await resolveInsideMemoryDir(context.memoryDir, requested);
    if (!inside.ok) return { content: `Delete refused: ${inside.reason}`, isError: true };
    if (path.posix.basename(inside.file) === "MEMORY.md")
      return { content: "Delete refused: MEMORY.md is the index; edit it instead", isError: true };
    try {
      const removed = await removeMemory(context.memoryDir, inside.file);
      context.filesWritten.push(removed.path);
      return {
        content: `Deleted ${removed.path} and its index line`,
        writtenPath: removed.path,
        memoryFile: removed.file,
      };
    } catch (error) {
      return { content: `Delete: ${input.file_path}: ${(error as Error).message}`, isError: true };
    }
  },
};

/**
 * The consolidating agent's permissions: the forked agents' memory-only rule (read anywhere,
 * write only in the memory dir), plus `SearchTranscripts` (read-only) and `Delete` (memory dir
 * only). Writes to memdir's own state — the history repository, the journal, proposals, lock
 * files, all dot-paths — are refused: the agent must not be able to rewrite its own record.
 */
export function consolidationPermissions(options: { memoryDir: string }): PermissionCheck {
  const base = memoryOnlyPermissions(options);
  return async (toolName, input, context) => {
    if (toolName === "SearchTranscripts") return { allow: true };
    const filePath = (input as { file_path?: unknown } | null)?.file_path;
    if (toolName === "Delete" || toolName === "Write" || toolName === "Edit") {
      if (typeof filePath !== "string" || filePath === "")
        return { allow: false, message: `${toolName}: file_path is missing` };
      // Kept as written (not normalized) so the path check still sees any `..`.
      const requested = path.isAbsolute(filePath) ? filePath : `${context.cwd}${path.sep}${filePath}`;
      const inside = await resolveInsideMemoryDir(options.memoryDir, requested);
      if (!inside.ok)
        return {
          allow: false,
          message: `${toolName} refused: this agent may change only files inside the memory directory ${options.memoryDir} (${inside.reason})`,
        };
      const decision = memoryFileDecision(toolName, inside.file);
      if (!decision.allow || toolName === "Delete") return decision;
    }
    return base(toolName, input, context);
  };
}

/** Read, Grep, Glob, Write, Edit, Delete and SearchTranscripts over `projectDir`'s sessions. */
export function consolidationTools(options: {
  projectDir: string;
  excludeSessionIds?: readonly string[];
}): ToolSpec[] {
  return [
    readTool,
    grepTool,
    globTool,
    writeTool,
    editTool,
    deleteMemoryTool,
    createSearchTranscriptsTool({
      projectDir: options.projectDir,
      excludeSessionIds: options.excludeSessionIds,
    }),
  ];
}
