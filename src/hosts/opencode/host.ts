import type { Host } from "../shared/host.ts";
import { opencodeSetup } from "./setup.ts";

/** opencode (docs/design.md#hosts). */
export const opencodeHost: Host = {
  name: "opencode",
  displayName: "opencode",
  lifecycle: { everyPrompt: true, afterEachTurn: false },
  // No hook commands: opencode loads JavaScript plugins, and memdir's (plugin.ts) brings the
  // index and recall where hooks do elsewhere.
  hooks: null,
  mcpClient: null,
  transcript: null,
  folderEnv: { xdgConfigHome: "XDG_CONFIG_HOME" },
  // A plugin, not hook commands: it runs memdir's session-start and prompt hooks, no Stop.
  setupNote: () =>
    "opencode gets the MCP server and memdir's plugin: the rules and the index in every request, the " +
    "memories recalled for each prompt, and memory_save for the model.",
  setup: opencodeSetup,
  nativeMemory: {
    what: "no auto memory memdir knows of",
    coexistence: "memdir's MCP tools and its plugin give memory",
    recommended: [],
  },
};
