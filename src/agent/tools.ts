/**
 * The agent's file tools, each defined once (docs/design.md#tools-defined-once): the agent loop sends their JSON
 * schemas to the model and the MCP server registers the same specs.
 */
import { editTool } from "./tools/edit.ts";
import { globTool } from "./tools/glob.ts";
import { grepTool } from "./tools/grep.ts";
import { readTool } from "./tools/read.ts";
import type { ToolSpec } from "./tools/spec.ts";
import { writeTool } from "./tools/write.ts";

export { editTool, globTool, grepTool, readTool, writeTool };

/** Read, Write, Edit, Glob, Grep: what the reference agent and forked agents use. */
export const defaultTools: readonly ToolSpec[] = [readTool, writeTool, editTool, globTool, grepTool];
