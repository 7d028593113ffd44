import { hookOutput } from "../shared/hook-events.ts";
import type { Host } from "../shared/host.ts";
import { messagesOfJsonLines } from "../shared/setup-common.ts";
import { COPILOT_HOOK_ENV } from "./hook-env.ts";
import { COPILOT_EVENTS, copilotSetup } from "./setup.ts";
import { messageFromCopilotLine } from "./transcript.ts";

/** GitHub Copilot CLI (docs/design.md#hosts). */
export const copilotHost: Host = {
  name: "copilot",
  displayName: "Copilot CLI",
  lifecycle: { everyPrompt: true, afterEachTurn: true },
  hooks: {
    events: COPILOT_EVENTS,
    recognizedBy:
      "`--host copilot` on the hook's command line, which setup writes: its payloads look like Claude Code's",
    dialect: "copilot",
    timeoutUnit: "s",
    answer: (event, context) => hookOutput(event, context, "copilot"),
    recognizes: (_input, _env, hostFlag) => hostFlag === "copilot",
  },
  hookEnvGap: COPILOT_HOOK_ENV,
  mcpClient: null,
  transcript: {
    location: "~/.copilot/session-state/<session id>/events.jsonl",
    read: (text) =>
      messagesOfJsonLines(text, (line) => {
        const event = messageFromCopilotLine(line);
        return event && "message" in event ? event.message : null;
      }),
  },
  folderEnv: { copilotHome: "COPILOT_HOME" },
  setup: copilotSetup,
  nativeMemory: {
    what: "no auto memory memdir knows of",
    coexistence:
      "memdir gives the whole cycle through its hooks (answered with a top-level additionalContext) and its MCP tools",
    recommended: [],
  },
};
