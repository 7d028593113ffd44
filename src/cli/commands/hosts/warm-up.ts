import { warmUp } from "../../../hooks/warm-up.ts";
import { type CommonOptions, type RegisterCommand, withCommonOptions } from "../../support/common.ts";
import { locationFromOptions } from "../../support/location.ts";
import { printJson } from "../../support/output.ts";

/**
 * Asks a running memory helper to load the memory dir whose caches are now warm, so the session's
 * first prompt finds it loaded (docs/design.md#the-memory-helper). Starts none; never fails.
 */
async function askHelperToPreload(memoryDir: string, env: NodeJS.ProcessEnv): Promise<void> {
  try {
    const { helperEnabled, helperPaths } = await import("../../../helper/paths.ts");
    const paths = helperPaths(env.HOME || undefined);
    if (paths === null || !helperEnabled(env)) return;
    const { askHelper } = await import("../../../helper/ask.ts");
    await askHelper(
      paths,
      { op: "preload", dir: memoryDir, env: { ...env } as Record<string, string> },
      1000,
    );
  } catch {
    // No helper to tell: the first prompt loads the dir, as without it.
  }
}

/**
 * `memdir warm-up`: fills the memory dir's persisted caches (`.memdir-cache/`: headers and the
 * lexical index) so the first recall of a fresh process — above all a hook with a 3 s bound — is
 * fast. `memdir hook session-start` starts it in the background when a big dir's caches are
 * missing or stale; by hand it is useful after a large import. One at a time per memory dir.
 */
export const registerWarmUpCommand: RegisterCommand = (program, context) => {
  withCommonOptions(
    program
      .command("warm-up")
      .description("fill the memory dir's caches so the first recall of a new process is fast"),
  ).action(async (options: CommonOptions) => {
    const location = await locationFromOptions(options, context);
    const started = Date.now();
    const outcome = await warmUp(location.memoryDir, context.env);
    const ms = Date.now() - started;
    if (outcome.status === "warmed") await askHelperToPreload(location.memoryDir, context.env);
    if (options.json) {
      printJson(context.io, { ...outcome, ms });
      return;
    }
    if (outcome.status === "warmed")
      context.io.stdout(`Caches of ${outcome.memories} memories are warm (${ms} ms)\n`);
    else if (outcome.status === "busy")
      context.io.stdout(
        `Another warm-up is running for this memory dir${outcome.holder === null ? "" : ` (pid ${outcome.holder})`}\n`,
      );
    else context.io.stdout(`Nothing to warm: ${outcome.reason}\n`);
  });
};
