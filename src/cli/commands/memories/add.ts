import path from "node:path";
import { Option } from "commander";
import { recordChange } from "../../../dream/history.ts";
import { parseFrontmatter } from "../../../memdir/format/frontmatter.ts";
import { INDEX_FILE } from "../../../memdir/format/index-file.ts";
import { readMemoryCapped } from "../../../memdir/fs/read.ts";
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
 * The memory whose name the writer had to number around (`user-prefers-pnpm.md` for a new
 * `user-prefers-pnpm-2.md`), when its description is the new one's: the same memory saved twice,
 * which the user is told of rather than left to find in `memdir list`.
 */
async function sameDescriptionBeside(
  memoryDir: string,
  file: string,
  description: string,
): Promise<string | null> {
  const numbered = /^(.*)-\d+\.md$/.exec(file);
  if (numbered === null) return null;
  const base = `${numbered[1]}.md`;
  const text = await readMemoryCapped(path.join(memoryDir, base), { memoryDir }).then(
    (read) => read.content,
    () => null,
  );
  if (text === null) return null;
  const words = (value: string | null) => (value ?? "").trim().replace(/\s+/g, " ").toLowerCase();
  return words(parseFrontmatter(text).description) === words(description) ? base : null;
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
    if (!options.file && saved.created) {
      const twin = await sameDescriptionBeside(location.memoryDir, saved.file, options.description);
      if (twin !== null)
        context.io.stderr(
          `memdir: note: ${twin} has the same description; this one was saved beside it as ${saved.file} ` +
            "(memdir rm one of them, or memdir dream merges duplicates)\n",
        );
    }
    if (options.json) printJson(context.io, { file: saved.file, path: saved.path });
    else context.io.stdout(`${saved.path}\n`);
  });
};
