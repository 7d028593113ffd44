import { type CommonOptions, type RegisterCommand, withCommonOptions } from "../../support/common.ts";
import { locationFromOptions } from "../../support/location.ts";
import { printJson } from "../../support/output.ts";

/** `memdir path`: where this project's memory lives (`--json`: `{memoryDir, projectRoot, index}`). */
export const registerPathCommand: RegisterCommand = (program, context) => {
  withCommonOptions(program.command("path").description("print the memory directory of the project")).action(
    async (options: CommonOptions) => {
      const location = await locationFromOptions(options, context);
      if (options.json) {
        printJson(context.io, {
          memoryDir: location.memoryDir,
          projectRoot: location.projectRoot,
          index: location.indexPath,
        });
      } else context.io.stdout(`${location.memoryDir}\n`);
    },
  );
};
