import { hostNamed } from "../../hosts/registry.ts";
import { type FileEdit, HOST_NAMES, type SetupRequest } from "../../hosts/shared/host.ts";

// What each agent's setup writes lives with its host (src/hosts/<agent>/setup.ts,
// docs/design.md#hosts); this is the face `memdir setup` and doctor use.
export {
  type FileEdit,
  type HostName as SetupAgent,
  type SetupRequest,
  type SetupScope,
  SetupUsageError,
} from "../../hosts/shared/host.ts";

/** The agents `memdir setup` knows. */
export const SETUP_AGENTS = HOST_NAMES;

/** The files `memdir setup <agent>` changes, in the order it reports them. */
export function setupEdits(request: SetupRequest): FileEdit[] {
  return hostNamed(request.agent).setup(request);
}
