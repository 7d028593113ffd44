import { spawn } from "node:child_process";

// On its own (not in stop.ts, which loads transcripts and model clients): session start spawns
// the cache warm-up and the sync pull through it, and loads nothing else for that (docs/design.md#the-prompt-hook-process).

/**
 * Starts `memdir <args>` as a detached background process the way this one was started (same
 * Node, same loader flags, same entry script), with no stdio tied to the hook, so the hook can
 * return at once and the agent is not kept waiting.
 */
export function spawnDetachedMemdir(args: readonly string[], env: NodeJS.ProcessEnv): number | undefined {
  const entry = process.argv[1];
  const child = spawn(process.execPath, [...process.execArgv, entry, ...args], {
    detached: true,
    stdio: "ignore",
    env,
  });
  child.on("error", () => {}); // a failed start must not crash the hook
  child.unref();
  return child.pid;
}
