import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import type { ResolvedConfig } from "../config.ts";
import { createModelClientFromConfig } from "../model/factory.ts";

export interface StopHookOptions {
  /** `transcript_path` from the hook input. */
  transcriptPath: string | undefined;
  /** The project directory the session ran in. */
  cwd: string;
  config: ResolvedConfig;
  /** Memory location options to pass on (`--root`, `--dir`), when the hook was given them. */
  root?: string;
  dir?: string;
}

/** What the stop hook decided: run `memdir <args>` in the background, or why not. */
export type StopHookPlan = { run: string[] } | { skip: string };

/**
 * Decides what a `Stop` hook does (pure but for one `stat`): with auto memory on, a model
 * configured and a transcript on disk, run `memdir extract --transcript <path>` in the
 * background (docs/design.md#when-extraction-runs: extraction never delays the user's answer); otherwise nothing.
 *
 * @example
 * planStopHook({ transcriptPath, cwd, config }) // { run: ["extract", "--transcript", "/…/s.jsonl", "--cwd", "/…"] }
 */
export function planStopHook(options: StopHookOptions): StopHookPlan {
  const { config } = options;
  if (!config.autoMemory) return { skip: `auto memory is off (${config.autoMemoryOffReason})` };
  if (config.bare) return { skip: "bare mode" };
  if (createModelClientFromConfig(config.model) === null)
    return { skip: "no model configured: extraction needs one" };
  if (!options.transcriptPath) return { skip: "the hook input names no transcript_path" };
  const transcript = path.resolve(options.cwd, options.transcriptPath);
  if (!fs.statSync(transcript, { throwIfNoEntry: false })?.isFile())
    return { skip: `no transcript at ${transcript}` };
  return {
    run: [
      "extract",
      "--transcript",
      transcript,
      "--cwd",
      options.cwd,
      ...(options.root ? ["--root", options.root] : []),
      ...(options.dir ? ["--dir", options.dir] : []),
    ],
  };
}

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
