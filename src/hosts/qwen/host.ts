import { hookOutput } from "../shared/hook-events.ts";
import type { Host } from "../shared/host.ts";
import { QWEN_EVENTS, QWEN_RECOMMENDED, qwenSetup } from "./setup.ts";

/** Qwen Code (docs/design.md#hosts). */
export const qwenHost: Host = {
  name: "qwen",
  displayName: "Qwen Code",
  lifecycle: { everyPrompt: true, afterEachTurn: true },
  hooks: {
    events: QWEN_EVENTS,
    recognizedBy:
      "QWEN_PROJECT_DIR in the hook's environment, which Qwen Code sets for every command hook (its payloads and event names are Claude Code's)",
    dialect: "claude-code",
    timeoutUnit: "s",
    answer: (event, context, hostEventName = null) =>
      hookOutput(event, context, "claude-code", hostEventName),
    recognizes: (_input, env) => env.QWEN_PROJECT_DIR !== undefined,
  },
  // Qwen Code's session files are not read: extraction uses what its Stop hook sends.
  mcpClient: null,
  transcript: null,
  folderEnv: { qwenHome: "QWEN_HOME" },
  setup: qwenSetup,
  nativeMemory: {
    what: "managed auto memory (its rules in the system prompt, an extraction call after each turn, a dream) and the save_memory tool's `## Qwen Added Memories` in QWEN.md",
    coexistence:
      "both run unless `--recommended` sets memory.enableManagedAutoMemory: false (`--remove` puts the prior value back); `memdir import qwen` reads its memories",
    recommended: QWEN_RECOMMENDED,
    recommendedWords: {
      settings: "memory.enableManagedAutoMemory: false",
      done: "Qwen Code's managed auto memory is off (memory.enableManagedAutoMemory: false).",
    },
    savesBesideMemdir: true,
  },
};
