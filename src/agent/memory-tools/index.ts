/**
 * The memory tools, each defined once (docs/design.md#tools-defined-once): `memory_recall`, `memory_save`,
 * `memory_update`, `memory_list`, `memory_read`, `memory_delete`, `memory_context`. The MCP server registers them
 * (with their output schemas and annotations); they are ordinary {@link ToolSpec}s, so the agent
 * loop can register the same objects. Every path a caller gives is checked by
 * `resolveInsideMemoryDir`, and every write goes through the single writer.
 */

import type { ToolSpec } from "../tools/spec.ts";
import { createContextTool } from "./context.ts";
import { createDeleteTool } from "./delete.ts";
import { createListTool } from "./list.ts";
import { createReadTool } from "./read.ts";
import { createRecallTool } from "./recall.ts";
import { createSaveTool } from "./save.ts";
import type { MemoryToolSpec, MemoryToolsOptions } from "./spec.ts";
import { createUpdateTool } from "./update.ts";

/**
 * The seven memory tools for one configuration (selector, settings). Calls take the memory dir,
 * cwd, clock and read-file state from their {@link ToolContext}.
 *
 * @example
 * const tools = createMemoryTools({ config, selector: createLexicalSelector() });
 * const context = createToolContext({ cwd, memoryDir });
 * const result = await tools[0].handler({ query: "how do we test login?" }, context);
 */
export function createMemoryTools(options: MemoryToolsOptions): MemoryToolSpec[] {
  return [
    createRecallTool(options),
    createSaveTool(options),
    createUpdateTool(options),
    createListTool(options),
    createReadTool(),
    createDeleteTool(),
    createContextTool(options),
  ];
}

/** True when a tool is one of the memory tools (it carries an output schema and `run`). */
export function isMemoryTool(tool: ToolSpec): tool is MemoryToolSpec {
  return "run" in tool && "outputSchema" in tool;
}
