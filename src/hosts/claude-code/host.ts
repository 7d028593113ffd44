import path from "node:path";
import { claudeConfigDir } from "../../config.ts";
import { hookOutput } from "../shared/hook-events.ts";
import type { Host } from "../shared/host.ts";
import { CLAUDE_EVENTS, messagesOfJsonLines } from "../shared/setup-common.ts";
import { CLAUDE_CODE_STEPS_ASIDE } from "./auto-memory.ts";
import { hostIsClaudeCode } from "./recognize.ts";
import { claudeSettingsEnv } from "./settings-env.ts";
import { CLAUDE_CODE_RECOMMENDED, claudeCodeSetup } from "./setup.ts";
import { messageFromClaudeCodeLine } from "./transcript.ts";

/** Claude Code (docs/design.md#hosts). */
export const claudeCodeHost: Host = {
  name: "claude-code",
  displayName: "Claude Code",
  lifecycle: { everyPrompt: true, afterEachTurn: true },
  hooks: {
    events: CLAUDE_EVENTS,
    recognizedBy: "CLAUDECODE=1 in the hook's environment, or a transcript under <config dir>/projects/",
    dialect: "claude-code",
    timeoutUnit: "s",
    answer: (event, context, hostEventName = null) =>
      hookOutput(event, context, "claude-code", hostEventName),
    recognizes: (input, env) =>
      hostIsClaudeCode(env, input.transcript_path, claudeConfigDir(env, env.HOME ?? path.sep)),
  },
  modelEnvWhere: 'in the "env" of ~/.claude/settings.json or the shell Claude Code starts from',
  mcpClient: null,
  transcript: {
    location: "~/.claude/projects/<project>/<session id>.jsonl",
    read: (text) => messagesOfJsonLines(text, (line) => messageFromClaudeCodeLine(line)?.message ?? null),
  },
  folderEnv: { claudeConfigDir: "CLAUDE_CONFIG_DIR" },
  setup: claudeCodeSetup,
  hookEnvWritten: claudeSettingsEnv,
  nativeMemory: {
    what: "auto memory: MEMORY.md and topic files under ~/.claude/projects/<project>/memory/, which Claude Code reads at session start and writes itself",
    coexistence:
      "while it is on for the project memdir's hooks add recall only (docs/design.md#coexistence); `--recommended` turns it off (autoMemoryEnabled: false) for memdir's whole cycle, which reads the same folder format",
    recommended: CLAUDE_CODE_RECOMMENDED,
    recommendedWords: {
      settings: "autoMemoryEnabled: false",
      done: "Claude Code's own auto memory is off (autoMemoryEnabled: false) and memdir on (env MEMDIR_DISABLE=0).",
    },
    hooksStepAside: CLAUDE_CODE_STEPS_ASIDE,
  },
};
