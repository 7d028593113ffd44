import fs from "node:fs/promises";
import { hookMode } from "../../hooks/mode.ts";
import { diagnoseMemoryDir, repairMemoryDir } from "../../memdir/doctor.ts";
import { unresolvedLinks } from "../../memdir/links.ts";
import { type CommonOptions, type RegisterCommand, withCommonOptions } from "../common.ts";
import { configFromOptions, locationFromOptions } from "../location.ts";
import { printJson } from "../output.ts";

interface DoctorOptions extends CommonOptions {
  fix?: boolean;
}

/**
 * `memdir doctor [--fix]`: lists problems (`--json`: `{issues: [{code, file, message}]}`, plus `notes` when there are any) and
 * exits 1 while any remain. `--fix` first repairs what is safe and then reports what is left.
 * `notes` (same shape) are information that never changes the exit code: `[[name]]` links to
 * no memory, which Claude Code calls fine (a memory worth writing later).
 */
export const registerDoctorCommand: RegisterCommand = (program, context) => {
  withCommonOptions(
    program
      .command("doctor")
      .description("check the memory directory: index pointers, frontmatter, index limits, secrets")
      .option("--fix", "remove dead index lines and add missing ones from descriptions"),
  ).action(async (options: DoctorOptions) => {
    const location = await locationFromOptions(options, context);
    const exists = await fs.stat(location.memoryDir).then(
      (stat) => stat.isDirectory(),
      () => false,
    );
    const fixed = exists && options.fix ? await repairMemoryDir(location.memoryDir) : [];
    const issues = exists ? await diagnoseMemoryDir(location.memoryDir) : [];
    const notes = exists ? await unresolvedLinks(location.memoryDir) : [];
    if (issues.length > 0) context.setExitCode(1);
    if (options.json) {
      printJson(context.io, notes.length > 0 ? { issues, notes } : { issues });
      return;
    }
    for (const line of fixed) context.io.stdout(`fixed: ${line}\n`);
    for (const issue of issues) context.io.stdout(`${issue.code}: ${issue.message}\n`);
    // Which part of the cycle `memdir hook …` gives (docs/design.md#coexistence).
    const config = configFromOptions(options, context, location);
    context.io.stdout(`as a Claude Code hook: ${hookMode(config, "claude-code").reason}\n`);
    context.io.stdout(`as a hook of other agents: ${hookMode(config, "other").reason}\n`);
    for (const note of notes) context.io.stdout(`note: ${note.message}\n`);
    context.io.stdout(
      issues.length === 0
        ? `no issues in ${location.memoryDir}\n`
        : `${issues.length} issue${issues.length === 1 ? "" : "s"} in ${location.memoryDir}\n`,
    );
  });
};
