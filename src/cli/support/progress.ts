import type { ProgressSink } from "../../types.ts";
import type { CommandContext } from "./common.ts";

/**
 * How long a job runs before its progress shows (docs/design.md#progress): a command that ends
 * sooner prints nothing, one that takes longer never leaves the terminal silent.
 * `MEMDIR_PROGRESS_AFTER_MS` overrides it (tests set 0 so a small directory shows it too).
 */
export const PROGRESS_AFTER_MS = 1000;

/** At most one redraw per this many milliseconds: a count that moves, not a flood of writes. */
const REDRAW_MS = 100;

/**
 * A progress sink that draws `memdir: <step> <done>/<total>` on one line of stderr, when stderr is
 * a terminal and the command does not print `--json` (docs/design.md#progress); undefined
 * otherwise, so nothing is computed for a pipe or a program. A step that was shown ends with its
 * total and `done` on a line of its own, as git's counters do.
 */
export function terminalProgress(
  context: Pick<CommandContext, "io" | "env">,
  options: { json?: boolean },
  clock: () => number = Date.now,
): ProgressSink | undefined {
  if (options.json === true || context.io.stderrIsTTY !== true) return undefined;
  const override = Number(context.env.MEMDIR_PROGRESS_AFTER_MS);
  const after =
    context.env.MEMDIR_PROGRESS_AFTER_MS !== undefined && override >= 0 ? override : PROGRESS_AFTER_MS;
  const started = clock();
  const drawnAt = new Map<string, number>();
  const count = (value: number) => value.toLocaleString("en-US");
  return (step, done, total) => {
    const now = clock();
    if (now - started < after) return;
    const line = `\r\x1b[Kmemdir: ${step} ${count(done)}/${count(total)}`;
    if (done >= total) {
      context.io.stderr(`${line}, done\n`);
      drawnAt.delete(step);
      return;
    }
    if (now - (drawnAt.get(step) ?? Number.NEGATIVE_INFINITY) < REDRAW_MS) return;
    drawnAt.set(step, now);
    context.io.stderr(line);
  };
}
