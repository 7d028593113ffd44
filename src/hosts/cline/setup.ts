import path from "node:path";
import { type FileEdit, type SetupRequest, SetupUsageError } from "../shared/host.ts";
import { mcpServer, serverEdit } from "../shared/setup-common.ts";

/**
 * Cline: the MCP server only, in the settings file every Cline app shares
 * (`~/.cline/data/settings/cline_mcp_settings.json`, moved by `CLINE_DIR` or `CLINE_DATA_DIR` as
 * Cline moves it; Cline versions before that shared folder keep theirs in the editor's storage).
 * Cline's hooks are executables named after the event that read `{taskId, hookName,
 * userPromptSubmit: {prompt}, …}` and answer `{cancel, contextModification}` — not the wire
 * format `memdir hook` speaks — so no hooks.
 */
export function clineSetup(request: SetupRequest): FileEdit[] {
  if (request.scope === "project")
    throw new SetupUsageError(
      "memdir: setup: cline keeps its MCP servers per user only; run it without --project",
    );
  const data =
    request.clineDataDir ?? path.join(request.clineDir ?? path.join(request.home, ".cline"), "data");
  const file = path.join(data, "settings", "cline_mcp_settings.json");
  // `timeout`: Cline's per-server request timeout in seconds (its schema: at least 1, default 60),
  // written out so a user who needs a longer one sees where it goes.
  return [serverEdit(file, "mcpServers", { ...mcpServer(request), disabled: false, timeout: 60 }, request)];
}
