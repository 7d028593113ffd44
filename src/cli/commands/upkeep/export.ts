import fs from "node:fs/promises";
import path from "node:path";
import { throwIfAborted } from "../../../errors.ts";
import { writeFileAtomicStreamed } from "../../../memdir/fs/atomic.ts";
import {
  type CommonOptions,
  type RegisterCommand,
  resolveFrom,
  usageError,
  withCommonOptions,
} from "../../support/common.ts";
import { locationFromOptions } from "../../support/location.ts";
import { printJson } from "../../support/output.ts";
import { terminalProgress } from "../../support/progress.ts";
import { StoppedBySignal, signalExitCode, untilSignal } from "../../support/until-signal.ts";

interface ExportOptions extends CommonOptions {
  format: string;
  out?: string;
}

/**
 * `memdir export --format jsonl [--out FILE]` (docs/import.md#export): every memory, its
 * frontmatter and body, as one JSON object a line, on stdout or into FILE; `memdir import jsonl`
 * reads it back.
 */
export const registerExportCommand: RegisterCommand = (program, context) => {
  withCommonOptions(
    program
      .command("export")
      .description(
        "write every memory as JSON Lines (frontmatter fields + body), to stdout or --out; --json: one JSON array",
      )
      .option("--format <format>", "the output format (jsonl)", "jsonl")
      .option("--out <file>", "write to this file instead of stdout"),
  ).action(async (options: ExportOptions) => {
    if (options.format !== "jsonl")
      throw usageError(`export: unknown format ${JSON.stringify(options.format)} (jsonl)`);
    const location = await locationFromOptions(options, context);
    const { exportJsonl } = await import("../../../import/export-jsonl.ts");
    const progress = terminalProgress(context, options);
    if (!options.out) {
      if (!options.json) {
        await exportJsonl(location.memoryDir, (line) => context.io.stdout(line), progress);
        return;
      }
      // `--json` is one JSON document, as for every command: the same objects in one array
      // (JSON Lines does not parse as one), still written a memory at a time.
      let first = true;
      context.io.stdout("[");
      await exportJsonl(
        location.memoryDir,
        (line) => {
          context.io.stdout(`${first ? "\n" : ",\n"}${line.trimEnd()}`);
          first = false;
        },
        progress,
      );
      context.io.stdout(first ? "]\n" : "\n]\n");
      return;
    }
    const out = resolveFrom(context, options.out);
    await fs.mkdir(path.dirname(out), { recursive: true });
    // All or nothing: the lines go to a temp file beside FILE that takes its name only once the
    // export is whole, so an export stopped half-way (an error, Ctrl-C, SIGTERM) leaves neither a
    // file that looks complete nor the temp file. Streamed, not joined first: at 20,000 memories
    // the joined lines peaked at 597 MB (docs/benchmarks.md#whole-commands-at-20000-memories).
    let count: number;
    try {
      ({ value: count } = await untilSignal("export", (signal) =>
        writeFileAtomicStreamed(out, (write) =>
          exportJsonl(
            location.memoryDir,
            (line) => {
              throwIfAborted(signal, "export");
              return write(line);
            },
            progress,
          ),
        ),
      ));
    } catch (error) {
      if (error instanceof StoppedBySignal) {
        context.io.stderr(`memdir: export: cancelled by ${error.signal}, ${out} not written\n`);
        context.setExitCode(signalExitCode(error.signal));
        return;
      }
      throw error;
    }
    if (options.json) printJson(context.io, { out, exported: count });
    else context.io.stderr(`exported ${count} memories to ${out}\n`);
  });
};
