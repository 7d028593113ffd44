import type { z } from "zod";
import type { ResolvedConfig } from "../../config.ts";
import { isMemdirError } from "../../errors.ts";
import type { Memdir } from "../../memdir/instance.ts";
import type { Selector } from "../../recall/selector.ts";
import type { RecordedChange } from "../../types.ts";
import { errorMessage, type ToolContext, type ToolSpec, toolError } from "../tools/spec.ts";

/**
 * What a memory tool's `run` returns: structured output plus the text a model reads, or a
 * readable error. Expected failures (a refused path, a secret, a missing file) are data here,
 * never thrown (docs/design.md#errors), so both the agent loop and MCP can hand them to the model.
 */
export type MemoryToolOutcome<Output> =
  | { ok: true; output: Output; text: string }
  | { ok: false; message: string };

/** MCP tool annotations (hints a client may show or use to ask for confirmation). */
export interface MemoryToolAnnotations {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  /** Always false: these tools touch only the memory directory. */
  openWorldHint: boolean;
}

/**
 * A memory tool defined once (docs/design.md#tools-defined-once): an ordinary {@link ToolSpec} the agent loop can
 * register, plus what MCP needs — a title, an output schema, annotations, and `run`, which
 * returns the structured output the agent's text `handler` is made from.
 */
// biome-ignore lint/suspicious/noExplicitAny: specs of any input and output share one list.
export interface MemoryToolSpec<Input = any, Output = any> extends ToolSpec<Input> {
  title: string;
  // biome-ignore lint/suspicious/noExplicitAny: MCP needs an object schema; its shape varies per tool.
  inputSchema: z.ZodObject<any> & z.ZodType<Input>;
  // biome-ignore lint/suspicious/noExplicitAny: as above, for the structured output.
  outputSchema: z.ZodObject<any> & z.ZodType<Output>;
  annotations: MemoryToolAnnotations;
  run(input: Input, context: ToolContext): Promise<MemoryToolOutcome<Output>>;
}

/** What the memory tools need besides each call's {@link ToolContext}. */
export interface MemoryToolsOptions {
  /** Settings (auto memory, home, root) for `memory_context`. */
  config: ResolvedConfig;
  /** Recall's selector; the caller picks it (lexical offline, hybrid with a model). */
  selector: Selector;
  /** Runs before a write, e.g. to create the memory dir and claim it for the project. */
  prepareMemoryDir?: () => Promise<void>;
  /** The caller's instance: used by `memory_list` and `memory_recall` for its memory dir (see `openMemdir`). */
  memdir?: Memdir;
  /**
   * When this session began (ms): `memory_save` refuses to save again what a memory saved since
   * then already says — the prompt hook's "remember …", or the model's own earlier save
   * (docs/design.md#one-explicit-save). Unset: no such check.
   */
  sessionStartedMs?: number;
}

/**
 * Completes a memory tool from its parts: `readOnly` comes from the annotations and the agent's
 * `handler` is `run` turned into text, so the two registrations can never disagree.
 */
// biome-ignore lint/suspicious/noExplicitAny: see MemoryToolSpec.
export function defineMemoryTool<Input = any, Output = any>(
  definition: Omit<MemoryToolSpec<Input, Output>, "handler" | "readOnly">,
): MemoryToolSpec<Input, Output> {
  return {
    ...definition,
    readOnly: definition.annotations.readOnlyHint,
    async handler(input, context) {
      const outcome = await runSafely(definition, input, context);
      return outcome.ok ? { content: outcome.text } : toolError(outcome.message);
    },
  };
}

/** Runs a tool, turning anything thrown into a readable error outcome (a tool never crashes its caller). */
export async function runSafely<Input, Output>(
  tool: Pick<MemoryToolSpec<Input, Output>, "name" | "run">,
  input: Input,
  context: ToolContext,
): Promise<MemoryToolOutcome<Output>> {
  try {
    return await tool.run(input, context);
  } catch (error) {
    const message = isMemdirError(error) ? error.message : `memdir: ${tool.name}: ${errorMessage(error)}`;
    return { ok: false, message };
  }
}

/** The memory dir of a call, or an error outcome when memory is off for this context. */
export function memoryDirOf(context: ToolContext, toolName: string): string | { ok: false; message: string } {
  if (context.memoryDir !== null) return context.memoryDir;
  return { ok: false, message: `memdir: ${toolName}: auto memory is off, so there is no memory directory` };
}

/**
 * Runs a memory tool's write as one history entry through the context's recorder (the MCP
 * server's), so `memdir undo` right after it takes back exactly that write (docs/design.md#undo);
 * without a recorder the write is made unrecorded.
 */
export function recordedWrite<T>(
  context: ToolContext,
  memoryDir: string,
  change: RecordedChange<T>,
  write: () => Promise<T>,
): Promise<T> {
  return context.record ? context.record(memoryDir, change, write) : write();
}
