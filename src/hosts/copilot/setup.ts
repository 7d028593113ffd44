import path from "node:path";
import { type FileEdit, type HookEvents, type SetupRequest, SetupUsageError } from "../shared/host.ts";
import { hookCommand, hooksEdit, mcpServer, serverEdit, versionedHooksFile } from "../shared/setup-common.ts";

/**
 * Claude Code's event names, which Copilot CLI runs as its own (`sessionStart`,
 * `userPromptSubmitted`, `postToolUse`, `agentStop`) with snake_case payloads. After a tool its
 * payload names `view`, `edit` and `create` by Claude Code's names (`Read`, `Edit`, `Write`, the
 * path in `path`), the entry's `matcher` keeps the hook off every other tool, and the answer's
 * `additionalContext` goes to the model after the tool's result ("Additional guidance from
 * postToolUse hooks"; test/integration/copilot.test.ts).
 */
export const COPILOT_EVENTS: HookEvents = [
  ["SessionStart", "session-start"],
  ["UserPromptSubmit", "user-prompt-submit"],
  ["PostToolUse", "post-tool-use", "Read|Edit|Write"],
  ["Stop", "stop"],
];

/**
 * Copilot CLI: memdir's own hooks file `~/.copilot/hooks/memdir.json` (`COPILOT_HOME` in place of
 * `~/.copilot`) in Copilot's format — `{version: 1, hooks: {Event: [{type: "command", bash,
 * timeoutSec}]}}` — and the MCP server in `mcp-config.json`. Each hook command carries `--host
 * copilot`: Copilot reads a top-level `additionalContext`, not `hookSpecificOutput`, and its
 * payloads look like Claude Code's, so the command line says whose answer to give.
 */
export function copilotSetup(request: SetupRequest): FileEdit[] {
  if (request.scope === "project")
    throw new SetupUsageError(
      "memdir: setup: copilot is set up per user (~/.copilot); run it without --project",
    );
  const dir = request.copilotHome ?? path.join(request.home, ".copilot");
  const hooks = path.join(dir, "hooks", "memdir.json");
  const entries = COPILOT_EVENTS.map(([event, memdirEvent, matcher]) => ({
    event,
    entry: {
      ...(matcher === undefined ? {} : { matcher }),
      type: "command",
      bash: hookCommand(request, memdirEvent, "copilot"),
      timeoutSec: 10,
    },
  }));
  const server = mcpServer(request);
  return [
    hooksEdit(hooks, entries, request, versionedHooksFile(request)),
    serverEdit(
      path.join(dir, "mcp-config.json"),
      "mcpServers",
      { type: "local", ...server, tools: ["*"] },
      request,
    ),
  ];
}
