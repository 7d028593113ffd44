import { recordChange } from "../../../dream/history.ts";
import { INDEX_FILE } from "../../../memdir/format/index-file.ts";
import { removeMemory, resolveMemoryTarget } from "../../../memdir/write/write.ts";
import { type CommonOptions, type RegisterCommand, withCommonOptions } from "../../support/common.ts";
import { locationFromOptions } from "../../support/location.ts";
import { printJson } from "../../support/output.ts";

/**
 * `memdir rm <file>`: removes a memory file and its index line (`--json`: `{file, path}`), as one
 * history entry that `memdir undo` takes back.
 */
export const registerRmCommand: RegisterCommand = (program, context) => {
  withCommonOptions(
    program
      .command("rm")
      .description("remove a memory file and its line in MEMORY.md")
      .argument("<file>", "memory file, relative to the memory directory"),
  ).action(async (file: string, options: CommonOptions) => {
    const location = await locationFromOptions(options, context);
    // Recorded as the writer names it (an absolute path, either Unicode spelling): the history
    // copies the file the removal takes (docs/design.md#undo).
    const target = await resolveMemoryTarget(location.memoryDir, file);
    const { result: removed } = await recordChange(
      location.memoryDir,
      {
        kind: "rm",
        command: "memdir rm",
        message: (result) => `removed ${result?.file ?? file}`,
        files: [target.file, INDEX_FILE],
        lock: true,
      },
      () => removeMemory(location.memoryDir, target.file),
    );
    if (options.json) printJson(context.io, removed);
    else context.io.stdout(`removed ${removed.path}\n`);
  });
};
