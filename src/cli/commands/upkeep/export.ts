import fs from "node:fs/promises";
import path from "node:path";
import { writeFileAtomic } from "../../../memdir/fs/atomic.ts";
import {
  type CommonOptions,
  type RegisterCommand,
  resolveFrom,
  usageError,
  withCommonOptions,
} from "../../support/common.ts";
import { locationFromOptions } from "../../support/location.ts";
import { terminalProgress } from "../../support/progress.ts";

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
      .description("write every memory as JSON Lines (frontmatter fields + body), to stdout or --out")
      .option("--format <format>", "the output format (jsonl)", "jsonl")
      .option("--out <file>", "write to this file instead of stdout"),
  ).action(async (options: ExportOptions) => {
    if (options.format !== "jsonl")
      throw usageError(`export: unknown format ${JSON.stringify(options.format)} (jsonl)`);
    const location = await locationFromOptions(options, context);
    const { exportJsonl } = await import("../../../import/export-jsonl.ts");
    const progress = terminalProgress(context, options);
    if (!options.out) {
      await exportJsonl(location.memoryDir, (line) => context.io.stdout(line), progress);
      return;
    }
    const lines: string[] = [];
    const count = await exportJsonl(
      location.memoryDir,
      (line) => {
        lines.push(line);
      },
      progress,
    );
    const out = resolveFrom(context, options.out);
    await fs.mkdir(path.dirname(out), { recursive: true });
    // All or nothing: an export stopped half-way must not leave a file that looks complete.
    await writeFileAtomic(out, lines.join(""));
    context.io.stderr(`exported ${count} memories to ${out}\n`);
  });
};
