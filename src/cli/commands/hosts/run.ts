import type { LoopEvent } from "../../../agent/loop.ts";
import {
  type AgentCommandOptions,
  memoryLine,
  sessionFromOptions,
  summarizeInput,
  withAgentOptions,
} from "../../support/agent-command.ts";
import type { RegisterCommand } from "../../support/common.ts";
import { colors } from "../../support/output.ts";

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
