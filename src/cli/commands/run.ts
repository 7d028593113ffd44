import path from "node:path";
import type { Command } from "commander";
import type { LoopEvent } from "../../agent/loop.ts";
import { type AgentSession, createAgentSession } from "../../session/agent-session.ts";
import {
  type CommandContext,
  type CommonOptions,
  type ModelOptions,
  withCommonOptions,
  withModelOptions,
} from "../common.ts";
import type { RegisterCommand } from "../main.ts";
import { colors } from "../output.ts";

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
    cwd: options.cwd,
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

/** An event as one JSON line for `--json` (`message` events and the full conversation left out). */
export function eventJson(event: LoopEvent): Record<string, unknown> | null {
  if (event.type === "message" || event.type === "assistant_message") return null;
  if (event.type === "turn_end")
    return { type: "turn_end", reason: event.reason, text: event.text, turns: event.turns };
  if (event.type === "error") return { type: "error", message: event.error.message };
  return { ...event };
}

/**
 * `memdir run "<prompt>"`: one agent turn with memory, the answer on stdout. Memory lines
 * (recalled, saved) and tool calls go to stderr so stdout is just the answer. `--json` prints
 * one JSON object per line per event (`text_delta`, `tool_call`, `tool_result`,
 * `memory_surfaced`, `memory_saved`, `usage`, `notice`, `error`, `turn_end`) and a last line
 * `{"type":"session","sessionId","transcript"}`.
 */
export const registerRunCommand: RegisterCommand = (program, context) => {
  withAgentOptions(
    program
      .command("run")
      .description("run one agent turn with memory and print the answer")
      .argument("<prompt>", "what to ask the agent"),
  ).action(async (prompt: string, options: AgentCommandOptions) => {
    const { io } = context;
    const json = options.json === true;
    const print = (value: Record<string, unknown>) => io.stdout(`${JSON.stringify(value)}\n`);
    const session = await sessionFromOptions(options, context, (text) =>
      json ? print({ type: "notice", text }) : io.stderr(`${text}\n`),
    );
    const controller = new AbortController();
    const onInterrupt = () => controller.abort();
    process.once("SIGINT", onInterrupt);
    let reason = "end_turn";
    let endedWithNewline = true;
    try {
      for await (const event of session.runTurn(prompt, { signal: controller.signal })) {
        if (json) {
          const line = eventJson(event);
          if (line) print(line);
        } else if (event.type === "text_delta") {
          io.stdout(event.text);
          endedWithNewline = event.text.endsWith("\n");
        } else if (event.type === "assistant_message" && !session.client.stream) {
          const text = (event.message.content as { type: string; text?: string }[])
            .filter((b) => b.type === "text")
            .map((b) => b.text)
            .join("");
          if (text) {
            io.stdout(text);
            endedWithNewline = text.endsWith("\n");
          }
        } else if (event.type === "tool_call") {
          io.stderr(colors.dim(`· ${event.name} ${summarizeInput(event.input)}\n`));
        } else if (event.type === "notice") {
          io.stderr(`${event.text}\n`);
        } else if (event.type === "error") {
          io.stderr(`memdir: run: ${event.error.message}\n`);
        }
        const line = json ? null : memoryLine(event, session);
        if (line) io.stderr(`${line}\n`);
        if (event.type === "turn_end") reason = event.reason;
      }
      if (!json && !endedWithNewline) io.stdout("\n");
    } finally {
      process.removeListener("SIGINT", onInterrupt);
      await session.close();
    }
    if (json) print({ type: "session", sessionId: session.sessionId, transcript: session.transcript.path });
    else
      io.stderr(colors.dim(`session ${session.sessionId} (continue with --resume ${session.sessionId})\n`));
    if (reason === "error") context.setExitCode(1);
    if (reason === "aborted") context.setExitCode(130);
  });
};

/** A short one-line view of a tool input for progress lines. */
export function summarizeInput(input: unknown): string {
  if (!input || typeof input !== "object") return "";
  const record = input as Record<string, unknown>;
  const main = record.file_path ?? record.pattern ?? record.path;
  return typeof main === "string" ? main : "";
}
