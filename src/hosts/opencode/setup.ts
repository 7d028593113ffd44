import path from "node:path";
import type { FileEdit, SetupRequest } from "../shared/host.ts";
import { mcpServer, serverEdit } from "../shared/setup-common.ts";
import { OPENCODE_PLUGIN_MARKER, opencodePluginSource } from "./plugin.ts";

/**
 * opencode: the MCP server in `opencode.json` (user: `~/.config/opencode/`, `XDG_CONFIG_HOME` in
 * place of `~/.config`; project: the repository root), and memdir's plugin in the `plugins/`
 * folder beside it (`.opencode/plugins/` for a project), which brings the index and recall as
 * hooks do elsewhere (src/hosts/opencode/plugin.ts).
 */
export function opencodeSetup(request: SetupRequest): FileEdit[] {
  const configDir =
    request.scope === "project"
      ? request.projectRoot
      : path.join(request.xdgConfigHome ?? path.join(request.home, ".config"), "opencode");
  const pluginDir =
    request.scope === "project"
      ? path.join(request.projectRoot, ".opencode", "plugins")
      : path.join(configDir, "plugins");
  const server = mcpServer(request);
  return [
    serverEdit(
      path.join(configDir, "opencode.json"),
      "mcp",
      // `timeout`: opencode's bound in ms on each request to the server, the first tool listing
      // included (default 5000). test/integration/opencode.test.ts once saw a session without
      // memdir's tools on a heavily loaded machine, where only the server's start is slow.
      { type: "local", command: [server.command, ...server.args], enabled: true, timeout: 30_000 },
      request,
    ),
    {
      path: path.join(pluginDir, "memdir.js"),
      format: "file",
      text: request.remove ? null : opencodePluginSource(request.command),
      marker: OPENCODE_PLUGIN_MARKER,
    },
  ];
}
