/**
 * What `memdir run` and `memdir chat` share: their options, the session built from them and the
 * progress lines both print. A file of its own so that one command never imports another.
 */
import path from "node:path";
import type { Command } from "commander";
import type { LoopEvent } from "../../agent/loop.ts";
import { type AgentSession, createAgentSession } from "../../session/agent-session.ts";
import {
  type CommandContext,
  type CommonOptions,
  type ModelOptions,
  resolveFrom,
  withCommonOptions,
  withModelOptions,
} from "./common.ts";

/** Options shared by `memdir run` and `memdir chat`. */
export interface AgentCommandOptions extends CommonOptions, ModelOptions {
  resume?: string;
  addDir?: string[];
  maxTurns?: string;
}

/** Adds the session options both agent commands take. */
export function withAgentOptions(command: Command): Command {
  return withModelOptions(
    withCommonOptions(command).option(
      "--resume <session-id>",
      "continue an earlier session (its transcript)",
    ),
  )
    .option("--add-dir <dir...>", "also load the instruction files of these directories")
    .option("--max-turns <n>", "model calls per turn before giving up", "20");
}

/** Builds the session for an agent command from its options and the CLI environment. */
export function sessionFromOptions(
  options: AgentCommandOptions,
  context: CommandContext,
  notify: (text: string) => void,
): Promise<AgentSession> {
  const maxTurns = Number(options.maxTurns ?? "20");
  return createAgentSession({
    cwd: resolveFrom(context, options.cwd ?? "."),
    root: options.root,
    dir: options.dir,
    env: context.env,
    home: context.env.HOME || undefined,
    provider: options.provider,
    model: options.model,
    baseURL: options.baseUrl,
    resume: options.resume,
    addDirs: options.addDir,
    maxTurns: Number.isInteger(maxTurns) && maxTurns > 0 ? maxTurns : 20,
    log: (message) => context.io.stderr(`${message}\n`),
    notify,
  });
}

/** The memory-related line a UI shows for an event (recalled / saved), or null. */
export function memoryLine(event: LoopEvent, session: AgentSession): string | null {
  const memoryDir = session.memory?.memoryDir;
  const shown = (file: string) => (memoryDir ? path.relative(memoryDir, file) || file : file);
  if (event.type === "memory_surfaced" && event.files.length > 0)
    return `↺ recalled: ${event.files.map(shown).join(", ")}`;
  if (event.type === "memory_saved" && event.files.length > 0) return `✎ saved: ${event.files.join(", ")}`;
  if (event.type === "tool_result" && !event.isError && event.memoryFile)
    return event.memoryFile === "MEMORY.md" ? "✎ updated the memory index" : `✎ saved: ${event.memoryFile}`;
  return null;
}

/** A short one-line view of a tool input for progress lines. */
export function summarizeInput(input: unknown): string {
  if (!input || typeof input !== "object") return "";
  const record = input as Record<string, unknown>;
  const main = record.file_path ?? record.pattern ?? record.path;
  return typeof main === "string" ? main : "";
}
