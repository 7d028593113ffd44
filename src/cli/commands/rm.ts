import { removeMemory } from "../../memdir/write.ts";
import { type CommonOptions, type RegisterCommand, withCommonOptions } from "../common.ts";
import { locationFromOptions } from "../location.ts";
import { printJson } from "../output.ts";

/** `memdir rm <file>`: removes a memory file and its index line (`--json`: `{file, path}`). */
export const registerRmCommand: RegisterCommand = (program, context) => {
  withCommonOptions(
    program
      .command("rm")
      .description("remove a memory file and its line in MEMORY.md")
      .argument("<file>", "memory file, relative to the memory directory"),
  ).action(async (file: string, options: CommonOptions) => {
    const location = await locationFromOptions(options, context);
    const removed = await removeMemory(location.memoryDir, file);
    if (options.json) printJson(context.io, removed);
    else context.io.stdout(`removed ${removed.path}\n`);
  });
};
