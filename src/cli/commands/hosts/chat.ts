import readline from "node:readline";
import {
  type AgentCommandOptions,
  memoryLine,
  sessionFromOptions,
  summarizeInput,
  withAgentOptions,
} from "../../support/agent-command.ts";
import type { RegisterCommand } from "../../support/common.ts";
import { colors } from "../../support/output.ts";

const EXIT_COMMANDS = new Set(["/exit", "/quit"]);

/**
 * `memdir chat`: an interactive session. Assistant text streams as it arrives; a line shows when
 * memory is recalled (`↺ recalled: …`) or saved (`✎ saved: …`). Ctrl-C aborts the running turn
 * (not the program); Ctrl-D or `/exit` quits, after background work (extraction) finishes.
 */
export const registerChatCommand: RegisterCommand = (program, context) => {
  withAgentOptions(
    program.command("chat").description("talk to the agent, with memory, in the terminal"),
  ).action(async (options: AgentCommandOptions) => {
    const { io } = context;
    const interactive = process.stdin.isTTY === true;
    const session = await sessionFromOptions(options, context, (text) => io.stdout(`${colors.dim(text)}\n`));
    const memoryNote = session.memory ? `memory: ${session.memory.memoryDir}` : "memory: off";
    io.stderr(
      colors.dim(
        `memdir chat · session ${session.sessionId} · ${memoryNote}\nCtrl-C aborts a turn · Ctrl-D or /exit quits\n`,
      ),
    );
    const lines = readline.createInterface({
      input: process.stdin,
      terminal: interactive,
      output: interactive ? process.stdout : undefined,
    });
    let turn: AbortController | null = null;
    const onInterrupt = () => {
      if (turn) {
        turn.abort();
        return;
      }
      io.stderr(colors.dim("\n(Ctrl-D or /exit to quit)\n"));
      if (interactive) lines.prompt();
    };
    lines.on("SIGINT", onInterrupt);
    process.on("SIGINT", onInterrupt);
    lines.setPrompt("› ");
    if (interactive) lines.prompt();
    try {
      for await (const raw of lines) {
        const text = raw.trim();
        if (EXIT_COMMANDS.has(text)) break;
        if (text === "") {
          if (interactive) lines.prompt();
          continue;
        }
        turn = new AbortController();
        let endedWithNewline = true;
        for await (const event of session.runTurn(text, { signal: turn.signal })) {
          if (event.type === "text_delta") {
            io.stdout(event.text);
            endedWithNewline = event.text.endsWith("\n");
            continue;
          }
          if (event.type === "assistant_message" && !session.client.stream) {
            for (const block of event.message.content as { type: string; text?: string }[])
              if (block.type === "text" && block.text) {
                io.stdout(block.text);
                endedWithNewline = block.text.endsWith("\n");
              }
          }
          const note =
            memoryLine(event, session) ??
            (event.type === "tool_call" ? `· ${event.name} ${summarizeInput(event.input)}` : null) ??
            (event.type === "notice" ? event.text : null) ??
            (event.type === "error" ? `error: ${event.error.message}` : null) ??
            (event.type === "turn_end" && event.reason === "aborted" ? "(turn aborted)" : null);
          if (note) {
            if (!endedWithNewline) io.stdout("\n");
            io.stdout(`${colors.dim(note)}\n`);
            endedWithNewline = true;
          }
        }
        if (!endedWithNewline) io.stdout("\n");
        turn = null;
        if (interactive) lines.prompt();
      }
    } finally {
      process.removeListener("SIGINT", onInterrupt);
      lines.close();
      await session.close();
    }
  });
};
