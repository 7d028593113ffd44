import path from "node:path";
import { z } from "zod";
import { relativeInside } from "../../memdir/fs/inside.ts";
import type { WriteOrigin } from "../../memdir/trust/provenance.ts";
import type { ToolDefinition } from "../../model/client.ts";
import type { ChangeRecorder, Clock, ReadFileState } from "../../types.ts";

/** What a tool handler returns: text for the model, and whether it is an error. */
export interface ToolResult {
  content: string;
  isError?: boolean;
  /** Absolute path the tool wrote, when it wrote one (UIs print "saved", forks report it). */
  writtenPath?: string;
  /** The memory file (relative to the memory dir) the tool wrote, when the write went there. */
  memoryFile?: string;
}

/**
 * Everything a tool may touch besides its input: the working directory, the session's
 * read-file state, the memory dir (writes there go through the single writer), the clock.
 * One context per agent: a forked agent gets its own (docs/design.md#the-forked-agent).
 */
export interface ToolContext {
  /** Relative paths in tool input resolve against this. */
  cwd: string;
  readFileState: ReadFileState;
  /** The auto-memory dir; null when memory is off (then nothing is routed to the writer). */
  memoryDir: string | null;
  now: Clock;
  signal?: AbortSignal;
  /** Absolute paths written through this context, in order (a forked agent reports them). */
  filesWritten: string[];
  /** Who writes through this context: the single writer stamps it and applies the quarantine by it. */
  origin?: WriteOrigin;
  /**
   * The memory dir as the model knows it, when `memoryDir` is a scratch copy of it (review mode,
   * docs/design.md#memory-modes): a path into it is taken as the same path in the copy, so what the
   * model addresses to the memory dir it was told of lands in the proposal.
   */
  shownMemoryDir?: string;
  /**
   * Records each write of the memory tools as one history entry, so `memdir undo` right after it
   * takes back exactly that write (docs/design.md#undo); the MCP server passes one. Unset: the
   * write is made unrecorded.
   */
  record?: ChangeRecorder;
}

/**
 * A tool defined once: the agent loop and the MCP server both register it (docs/design.md#tools-defined-once).
 * `readOnly` tools never change files; permission checks may allow them everywhere.
 */
// biome-ignore lint/suspicious/noExplicitAny: handlers are contravariant in their input; `any` lets specs of any input share one list.
export interface ToolSpec<Input = any> {
  name: string;
  description: string;
  inputSchema: z.ZodType<Input>;
  readOnly: boolean;
  handler(input: Input, context: ToolContext): Promise<ToolResult>;
}

/** A fresh tool context. */
export function createToolContext(options: {
  cwd: string;
  memoryDir?: string | null;
  now?: Clock;
  signal?: AbortSignal;
  readFileState?: ReadFileState;
  origin?: WriteOrigin;
  shownMemoryDir?: string;
  record?: ChangeRecorder;
}): ToolContext {
  return {
    ...(options.origin ? { origin: options.origin } : {}),
    ...(options.record ? { record: options.record } : {}),
    ...(options.shownMemoryDir ? { shownMemoryDir: options.shownMemoryDir } : {}),
    cwd: options.cwd,
    memoryDir: options.memoryDir ?? null,
    now: options.now ?? Date.now,
    signal: options.signal,
    readFileState: options.readFileState ?? new Map(),
    filesWritten: [],
  };
}

/**
 * The JSON schema of a tool's input, for `ToolDefinition` (model requests) and MCP.
 * @example toolDefinition(readTool) // {name: "Read", description, inputSchema: {type: "object", …}}
 */
export function toolDefinition(tool: ToolSpec): ToolDefinition {
  const schema = z.toJSONSchema(tool.inputSchema, { io: "input" }) as Record<string, unknown>;
  delete schema.$schema;
  return { name: tool.name, description: tool.description, inputSchema: schema };
}

/**
 * A tool's `file_path` made absolute but kept as written, so a path check still sees any `..`:
 * relative to the context's cwd, and a path into `shownMemoryDir` moved to the same place in
 * `memoryDir` (the scratch copy the tools work on).
 *
 * @example requestedToolPath({cwd: "/m", memoryDir: "/tmp/s/memory", shownMemoryDir: "/m"}, "/m/a.md") // "/tmp/s/memory/a.md"
 */
export function requestedToolPath(
  context: Pick<ToolContext, "cwd" | "memoryDir" | "shownMemoryDir">,
  filePath: string,
): string {
  const absolute = path.isAbsolute(filePath) ? filePath : `${context.cwd}${path.sep}${filePath}`;
  const shown = context.shownMemoryDir;
  if (shown === undefined || context.memoryDir === null) return absolute;
  const shownDir = path.resolve(shown);
  const inside = relativeInside(shownDir, absolute, { orSame: true });
  if (inside === null) return absolute;
  return inside === "" ? context.memoryDir : path.join(context.memoryDir, inside);
}

/** Resolves a tool's `file_path` (absolute, or relative to the context's cwd; see {@link requestedToolPath}). */
export function resolveToolPath(
  context: Pick<ToolContext, "cwd" | "memoryDir" | "shownMemoryDir">,
  filePath: string,
): string {
  return path.resolve(requestedToolPath(context, filePath));
}

/** A tool error result with a readable message. */
export function toolError(message: string): ToolResult {
  return { content: message, isError: true };
}

/** The message of an unknown thrown value (tool errors become results, never crashes). */
export function errorMessage(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return "no such file or directory";
    if (code === "EACCES" || code === "EPERM") return "permission denied";
    if (code === "EISDIR") return "is a directory";
    return error.message;
  }
  return String(error);
}
