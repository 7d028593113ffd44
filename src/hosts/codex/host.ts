import { hookOutput } from "../shared/hook-events.ts";
import type { Host } from "../shared/host.ts";
import { messagesOfJsonLines } from "../shared/setup-common.ts";
import { codexHookIssues } from "./doctor.ts";
import { CODEX_EVENTS, codexSetup } from "./setup.ts";
import { codexSetupNote } from "./setup-note.ts";
import { messageFromCodexLine } from "./transcript.ts";

/** OpenAI Codex CLI (docs/design.md#hosts). */
export const codexHost: Host = {
  name: "codex",
  displayName: "Codex",
  lifecycle: { everyPrompt: true, afterEachTurn: true },
  hooks: {
    events: CODEX_EVENTS,
    recognizedBy:
      "a transcript_path naming a rollout-*.jsonl session file (Claude Code's payload shape otherwise)",
    dialect: "claude-code",
    timeoutUnit: "s",
    answer: (event, context, hostEventName = null) =>
      hookOutput(event, context, "claude-code", hostEventName),
    recognizes: (input) => /[/\\]rollout-[^/\\]*\.jsonl$/.test(input.transcript_path ?? ""),
  },
  mcpClient: null,
  transcript: {
    location: "~/.codex/sessions/<yyyy>/<mm>/<dd>/rollout-*.jsonl",
    read: (text) =>
      messagesOfJsonLines(text, (line, lineNumber) => {
        const event = messageFromCodexLine(line, lineNumber);
        return event && "message" in event ? event.message : null;
      }),
  },
  folderEnv: { codexHome: "CODEX_HOME" },
  setup: codexSetup,
  setupNote: codexSetupNote,
  doctor: codexHookIssues,
  nativeMemory: {
    what: "no auto memory memdir knows of (AGENTS.md files are instructions the user writes)",
    coexistence:
      "memdir gives the whole cycle; Codex runs a user hook only once its hash is trusted, so user-scope setup writes the trust entries (hook-trust.ts) and `memdir doctor` checks them",
    recommended: [],
  },
};
