import { Option } from "commander";
import { changeRecorder } from "../../../dream/history.ts";
import { MemdirError } from "../../../errors.ts";
import { rememberStatement } from "../../../extract/explicit.ts";
import { ensureMemoryDir } from "../../../memdir/location/paths.ts";
import { MEMORY_TYPES, type MemoryType } from "../../../types.ts";
import { startAutoSync } from "../../support/auto-sync.ts";
import {
  type CommonOptions,
  type RegisterCommand,
  usageError,
  withCommonOptions,
} from "../../support/common.ts";
import { configFromOptions, locationFromOptions, memdirForCommand } from "../../support/location.ts";
import { printJson } from "../../support/output.ts";

interface RememberOptions extends CommonOptions {
  type?: MemoryType;
}

/**
 * `memdir remember "<statement>"`: saves one memory from a natural-language statement, offline.
 * `记住：…` / `remember: …` prefixes are stripped; a plain statement is saved as it is. One history
 * entry, which `memdir undo` takes back.
 */
export const registerRememberCommand: RegisterCommand = (program, context) => {
  withCommonOptions(
    program
      .command("remember")
      .description('save a statement as a memory (no model needed); e.g. memdir remember "use pnpm, not npm"')
      .argument("<statement...>", "what to remember")
      .addOption(
        new Option("--type <type>", "memory type (default: guessed from the statement)").choices(
          MEMORY_TYPES,
        ),
      ),
  ).action(async (words: string[], options: RememberOptions) => {
    const statement = words.join(" ").trim();
    if (statement === "") throw usageError("remember: give the statement to remember");
    const location = await locationFromOptions(options, context);
    await ensureMemoryDir(location);
    const result = await rememberStatement(statement, {
      memoryDir: location.memoryDir,
      memdir: memdirForCommand(location, context),
      type: options.type,
      origin: { source: "cli", projectRoot: location.projectRoot },
      // One history entry, so `memdir undo` takes back this memory and nothing else (docs/design.md#undo).
      record: changeRecorder({ command: "memdir remember" }),
    });
    if (result.action === "refused") throw new MemdirError("invalid-input", result.reason);
    await startAutoSync("after-save", location, configFromOptions(options, context, location), context.env);
    if (result.warning) context.io.stderr(`memdir: warning: ${result.warning}\n`);
    if (options.json) {
      printJson(context.io, {
        file: result.file,
        path: result.path,
        type: result.type,
        description: result.description,
      });
    } else {
      context.io.stdout(
        `${result.created ? "Saved" : "Updated"} ${result.type} memory ${result.file}: ${result.description}\n`,
      );
    }
  });
};
