import { MemdirError } from "../errors.ts";
import type { MemdirMemoryToolHandlers, MemoryCommand } from "./commands.ts";
import { type MemoryToolHandlerOptions, memoryToolHandlers } from "./handlers.ts";

/** A JSON Schema object (draft 2020-12 / OpenAPI subset every tool-calling API accepts). */
export type JsonSchema = Record<string, unknown>;

/** One tool for any agent loop: name, description, JSON Schema of its input, and `execute`. */
export interface NeutralTool {
  name: string;
  description: string;
  inputSchema: JsonSchema;
  /** Runs one call; resolves to the text for the model, `Error: …` when it was refused. Never rejects. */
  execute(input: unknown): Promise<string>;
}

const COMMANDS = ["view", "create", "str_replace", "insert", "delete", "rename"] as const;

const DESCRIPTION = [
  "Long-term memory that outlives this conversation: Markdown files under /memories.",
  "At the start of a task, view /memories to see every memory with its description, then view the ones that matter.",
  "Save what future conversations need (who the user is, rules and corrections they gave, project decisions,",
  "where outside information lives) with create; update with str_replace or insert; remove stale ones with delete.",
  "A memory file starts with frontmatter (---, description: <when it is useful>, type: user|feedback|project|reference, ---).",
  "Never store secrets (they are refused) or what the code and git history already tell.",
].join(" ");

/** The input schema of the `memory` tool: the six commands of Anthropic's `memory_20250818`, flattened. */
export const MEMORY_TOOL_INPUT_SCHEMA: JsonSchema = {
  type: "object",
  properties: {
    command: { type: "string", enum: [...COMMANDS], description: "What to do" },
    path: {
      type: "string",
      description: "A path under /memories (view, create, str_replace, insert, delete)",
    },
    view_range: {
      type: "array",
      items: { type: "integer" },
      description: "view: [first, last] line to show, 1-based; last -1 means to the end",
    },
    file_text: { type: "string", description: "create: the whole file" },
    old_str: { type: "string", description: "str_replace: text that appears exactly once in the file" },
    new_str: { type: "string", description: "str_replace: the text to put in its place" },
    insert_line: { type: "integer", description: "insert: the line after which to insert (0: at the top)" },
    insert_text: { type: "string", description: "insert: the text to insert" },
    old_path: { type: "string", description: "rename: the current path" },
    new_path: { type: "string", description: "rename: the new path" },
  },
  required: ["command"],
  additionalProperties: false,
};

/**
 * The memory tool for agent loops other than Anthropic's tool runner (the Vercel AI SDK,
 * LangChain, a hand-written loop): one `memory` tool with a JSON Schema input and an
 * `execute` that runs the same handlers as {@link memoryToolHandlers}, returned as a record by
 * name. A refusal comes back as text starting with `Error:`, so the model can correct itself.
 *
 * @example
 * import { jsonSchema, tool } from "ai";
 * const { memory } = memoryToolSet(memoryDir);
 * const tools = { memory: tool({ description: memory.description, inputSchema: jsonSchema(memory.inputSchema), execute: memory.execute }) };
 */
export function memoryToolSet(
  memoryDir: string,
  options: MemoryToolHandlerOptions = {},
): { memory: NeutralTool } {
  const handlers = memoryToolHandlers(memoryDir, options);
  return {
    memory: {
      name: "memory",
      description: DESCRIPTION,
      inputSchema: MEMORY_TOOL_INPUT_SCHEMA,
      execute: async (input) => {
        try {
          return await runCommand(handlers, input);
        } catch (error) {
          return `Error: ${error instanceof Error ? error.message : String(error)}`;
        }
      },
    },
  };
}

/** Checks the command name and dispatches it; the handlers check every field they use. */
function runCommand(handlers: MemdirMemoryToolHandlers, input: unknown): Promise<string> {
  const command = (input as { command?: unknown } | null)?.command;
  if (typeof command !== "string" || !(COMMANDS as readonly string[]).includes(command))
    throw new MemdirError(
      "invalid-input",
      `memory tool: unknown command ${JSON.stringify(command)} (one of ${COMMANDS.join(", ")})`,
    );
  const call = input as MemoryCommand;
  switch (call.command) {
    case "view":
      return handlers.view(call);
    case "create":
      return handlers.create(call);
    case "str_replace":
      return handlers.str_replace(call);
    case "insert":
      return handlers.insert(call);
    case "delete":
      return handlers.delete(call);
    case "rename":
      return handlers.rename(call);
  }
}
