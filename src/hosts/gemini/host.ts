import { hookOutput } from "../shared/hook-events.ts";
import type { Host } from "../shared/host.ts";
import { GEMINI_EVENTS, geminiSetup } from "./setup.ts";
import { messagesFromGeminiSession } from "./transcript.ts";

/**
 * The event names only Gemini CLI sends (Claude Code, Codex and Qwen Code send SessionStart too).
 * Its hooks' environment has GEMINI_PROJECT_DIR; Qwen Code, a fork, sets that one too beside its
 * own QWEN_PROJECT_DIR (both CLIs' bundles: the hook runner's environment).
 */
const GEMINI_ONLY_EVENTS = new Set(["BeforeAgent", "AfterAgent", "AfterTool", "PreCompress"]);

/** Gemini CLI (docs/design.md#hosts). */
export const geminiHost: Host = {
  name: "gemini",
  displayName: "Gemini CLI",
  lifecycle: { everyPrompt: true, afterEachTurn: true },
  hooks: {
    events: GEMINI_EVENTS,
    recognizedBy:
      "its own event names (BeforeAgent, AfterAgent, AfterTool, PreCompress), or GEMINI_PROJECT_DIR in the hook's environment",
    dialect: "claude-code",
    timeoutUnit: "ms",
    answer: (event, context, hostEventName = null) =>
      hookOutput(event, context, "claude-code", hostEventName),
    recognizes: (input, env) =>
      GEMINI_ONLY_EVENTS.has(input.hook_event_name ?? "") ||
      (env.GEMINI_PROJECT_DIR !== undefined && env.QWEN_PROJECT_DIR === undefined),
  },
  mcpClient: null,
  transcript: {
    location: "~/.gemini/tmp/<project hash>/chats/session-*.jsonl",
    read: (text) => messagesFromGeminiSession(text)?.messages ?? [],
  },
  folderEnv: { geminiCliHome: "GEMINI_CLI_HOME" },
  setup: geminiSetup,
  nativeMemory: {
    what: "its save_memory tool, which appends to a `## Gemini Added Memories` section of ~/.gemini/GEMINI.md",
    coexistence:
      "both run: memdir does not write GEMINI.md; `memdir import` reads that section into memdir (src/import/sources/added-memories.ts)",
    recommended: [],
  },
};
