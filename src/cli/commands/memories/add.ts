import { Option } from "commander";
import { recordChange } from "../../../dream/history.ts";
import { INDEX_FILE } from "../../../memdir/format/index-file.ts";
import { ensureMemoryDir } from "../../../memdir/location/paths.ts";
import { checkSaveInput, resolveMemoryTarget, saveMemory } from "../../../memdir/write/write.ts";
import { MEMORY_TYPES } from "../../../types.ts";
import { startAutoSync } from "../../support/auto-sync.ts";
import {
  type CommonOptions,
  type RegisterCommand,
  usageError,
  withCommonOptions,
} from "../../support/common.ts";
import { configFromOptions, locationFromOptions } from "../../support/location.ts";
import { printJson } from "../../support/output.ts";

interface AddOptions extends CommonOptions {
  type: string;
  description: string;
  file?: string;
  title?: string;
}

/**
 * `memdir add --type T --description D [--file F] [--title T] [BODY]`: saves one memory through
 * the single writer (file + index line). The body comes from stdin when omitted; an empty or
 * blank one is a usage error (exit 2) and writes nothing. Prints the path
 * (`--json`: `{file, path}`); a warning on stderr when the index went over its limits.
 */
export const registerAddCommand: RegisterCommand = (program, context) => {
  withCommonOptions(
    program
      .command("add")
      .description("save a memory (body from the argument or stdin) and add its line to MEMORY.md")
      .argument("[body]", "the memory text (default: read from stdin)")
      .addOption(new Option("--type <type>", "memory type").choices(MEMORY_TYPES).makeOptionMandatory())
      .requiredOption("--description <text>", "one line saying when this memory is useful")
      .option(
        "--file <file>",
        "file name relative to the memory dir (default: derived from type and description)",
      )
      .option("--title <title>", "title of the index line (default: from the file name)"),
  ).action(async (bodyArgument: string | undefined, options: AddOptions) => {
    let body = bodyArgument;
    if (body === undefined) {
      if (!context.io.stdin) throw usageError("add: give the memory text as an argument or on stdin");
      body = await context.io.stdin();
    }
    // A memory with no text is a mistake (an empty pipe, a forgotten argument): nothing is written.
    if (body.trim() === "")
      throw usageError("add: the memory text is empty: give it as an argument or on stdin");
    const input = {
      type: options.type,
      description: options.description,
      body: body ?? "",
      ...(options.file ? { file: options.file } : {}),
      ...(options.title ? { title: options.title } : {}),
    };
    // Refused input leaves the dir as it was: no history is begun for a save that cannot happen.
    checkSaveInput(input);
    const location = await locationFromOptions(options, context);
    await ensureMemoryDir(location);
    // Recorded as the writer names it (an absolute path, either Unicode spelling).
    const file = options.file
      ? (await resolveMemoryTarget(location.memoryDir, options.file)).file
      : undefined;
    // One history entry: over an existing file it replaces its text, and `memdir undo` brings
    // that text back; a new memory is removed again (docs/design.md#undo).
    const { result: saved } = await recordChange(
      location.memoryDir,
      {
        kind: "add",
        command: "memdir add",
        message: (result) => (result ? `${result.created ? "added" : "replaced"} ${result.file}` : "add"),
        files: [...(file ? [file] : []), INDEX_FILE],
        madeFiles: (result) => [result.file],
        lock: true,
      },
      () =>
        saveMemory(location.memoryDir, input, {
          origin: { source: "cli", projectRoot: location.projectRoot },
        }),
    );
    if (saved.indexWarning) context.io.stderr(`memdir: warning: ${saved.indexWarning}\n`);
    await startAutoSync("after-save", location, configFromOptions(options, context, location), context.env);
    if (saved.warning) context.io.stderr(`memdir: warning: ${saved.warning}\n`);
    if (options.json) printJson(context.io, { file: saved.file, path: saved.path });
    else context.io.stdout(`${saved.path}\n`);
  });
};
