import { type MemoryLocation, resolveMemoryLocation } from "../memdir/paths.ts";
import type { CommandContext, CommonOptions } from "./common.ts";

/**
 * The memory location a command works on, from its `--root`, `--cwd` and `--dir` options and the
 * CLI's environment (`MEMDIR_ROOT`, `HOME`). Every command resolves it through here so they all
 * agree on where memory lives.
 *
 * @example
 * const location = await locationFromOptions(options, context);
 * const headers = await scanHeaders(location.memoryDir);
 */
export function locationFromOptions(
  options: CommonOptions,
  context: CommandContext,
): Promise<MemoryLocation> {
  return resolveMemoryLocation({
    cwd: options.cwd,
    root: options.root,
    dir: options.dir,
    env: context.env,
    home: context.env.HOME || undefined,
  });
}
