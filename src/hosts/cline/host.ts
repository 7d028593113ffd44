import type { Host } from "../shared/host.ts";
import { clineSetup } from "./setup.ts";

/** Cline (docs/design.md#hosts). */
export const clineHost: Host = {
  name: "cline",
  displayName: "Cline",
  // Its hooks are executables with their own wire format (cline/setup.ts): MCP only.
  hooks: null,
  transcript: null,
  setup: clineSetup,
  nativeMemory: {
    what: 'no auto memory memdir knows of (a "memory bank" is a convention of user-written files)',
    coexistence: "memdir's MCP tools give memory",
    recommended: [],
  },
};
