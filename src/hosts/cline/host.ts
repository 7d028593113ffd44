import type { Host } from "../shared/host.ts";
import { CLINE_MCP_CLIENT } from "./mcp-client.ts";
import { clineSetup } from "./setup.ts";

/** Cline (docs/design.md#hosts). */
export const clineHost: Host = {
  name: "cline",
  displayName: "Cline",
  lifecycle: { everyPrompt: false, afterEachTurn: false },
  // Its hooks are executables with their own wire format (cline/setup.ts): MCP only.
  hooks: null,
  mcpClient: { name: CLINE_MCP_CLIENT, showsStructuredContent: true },
  transcript: null,
  folderEnv: { clineDir: "CLINE_DIR", clineDataDir: "CLINE_DATA_DIR" },
  setup: clineSetup,
  nativeMemory: {
    what: 'no auto memory memdir knows of (a "memory bank" is a convention of user-written files)',
    coexistence: "memdir's MCP tools give memory",
    recommended: [],
  },
};
