import path from "node:path";
import { type FileEdit, type SetupRequest, SetupUsageError } from "../shared/host.ts";
import {
  CLAUDE_NAMES_WITHOUT_FILE_HOOK,
  hookCommand,
  hooksEdit,
  mcpServer,
  serverEdit,
  versionedHooksFile,
} from "../shared/setup-common.ts";

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
  const entries = CLAUDE_NAMES_WITHOUT_FILE_HOOK.map(([event, memdirEvent]) => ({
    event,
    entry: { type: "command", bash: hookCommand(request, memdirEvent, "copilot"), timeoutSec: 10 },
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
