/**
 * `memdir/anthropic` — Anthropic's memory tool (`memory_20250818`) on a memory directory, and the
 * same tool for other agent loops (JSON Schema + `execute`). Loads no SDK: pass the handlers to
 * the SDK's `betaMemoryTool` yourself.
 *
 * @example
 * import { betaMemoryTool } from "@anthropic-ai/sdk/helpers/beta/memory";
 * import { memoryToolHandlers } from "memdir/anthropic";
 * const memory = betaMemoryTool(memoryToolHandlers(memoryDir));
 */

export type {
  MemdirMemoryToolHandlers,
  MemoryCommand,
  MemoryCreateCommand,
  MemoryDeleteCommand,
  MemoryInsertCommand,
  MemoryRenameCommand,
  MemoryStrReplaceCommand,
  MemoryViewCommand,
} from "../memory-tool/commands.ts";
export {
  MEMORY_TOOL_ROOT,
  type MemoryToolHandlerOptions,
  memoryToolHandlers,
} from "../memory-tool/handlers.ts";
export { type InferredMemory, inferMemory } from "../memory-tool/infer.ts";
export {
  type JsonSchema,
  MEMORY_TOOL_INPUT_SCHEMA,
  memoryToolSet,
  type NeutralTool,
} from "../memory-tool/tool-set.ts";
