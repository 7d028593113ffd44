import { hookDialect, hookOutput } from "../shared/hook-events.ts";
import type { Host } from "../shared/host.ts";
import { messagesOfJsonLines } from "../shared/setup-common.ts";
import { CURSOR_EVENTS, cursorSetup } from "./setup.ts";
import { messageFromCursorLine } from "./transcript.ts";

/** Cursor (docs/design.md#hosts). */
export const cursorHost: Host = {
  name: "cursor",
  displayName: "Cursor",
  lifecycle: { everyPrompt: false, afterEachTurn: true },
  hooks: {
    events: CURSOR_EVENTS,
    recognizedBy: "cursor_version and workspace_roots in every payload, and camelCase event names",
    dialect: "cursor",
    // Cursor's hooks.json entries carry no timeout: memdir bounds its own work.
    timeoutUnit: "s",
    answer: (event, context) => hookOutput(event, context, "cursor"),
    recognizes: (input) => hookDialect(input) === "cursor",
  },
  mcpClient: null,
  transcript: {
    location: "~/.cursor/projects/<workspace>/agent-transcripts/<id>/<id>.jsonl",
    read: (text) => messagesOfJsonLines(text, messageFromCursorLine),
  },
  folderEnv: {},
  setup: cursorSetup,
  nativeMemory: {
    what: "no auto memory memdir reads (Cursor keeps its own in its app storage)",
    coexistence:
      "memdir adds its rules and index at session start, extracts at stop, and recalls through its MCP tools",
    recommended: [],
  },
};
