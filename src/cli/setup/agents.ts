import { HOSTS, hostNamed } from "../../hosts/registry.ts";
import { type AgentFolders, type FileEdit, HOST_NAMES, type SetupRequest } from "../../hosts/shared/host.ts";

// What each agent's setup writes lives with its host (src/hosts/<agent>/setup.ts,
// docs/design.md#hosts); this is the face `memdir setup` and doctor use.
export {
  type AgentFolders,
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

/**
 * The agents' folders as `env` moves them (an empty variable counts as unset): each host names its
 * variables (`folderEnv`), and the command line reads them here, for setup and `memdir doctor` alike.
 */
export function agentFoldersFrom(env: NodeJS.ProcessEnv): AgentFolders {
  const folders: AgentFolders = {};
  for (const host of HOSTS)
    for (const [field, variable] of Object.entries(host.folderEnv) as Array<[keyof AgentFolders, string]>)
      folders[field] = env[variable] || undefined;
  return folders;
}
