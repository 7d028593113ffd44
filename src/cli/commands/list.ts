import { isoTime, manifestLine } from "../../memdir/scan.ts";
import { savedAtMs } from "../../types.ts";
import { type CommonOptions, type RegisterCommand, withCommonOptions } from "../common.ts";
import { locationFromOptions, memdirForCommand } from "../location.ts";
import { printJson } from "../output.ts";

/**
 * `memdir list`: every memory, newest first, as the header scan sees it (first 30 lines).
 * Human output is the manifest the selector gets; `--json` is
 * `[{file, path, type, description, mtime}]` with `null` for what the scan did not find (`mtime`
 * is the file's; the manifest shows the saved time, a valid frontmatter `modified` first, and
 * `memdir show --json` has `modified` and `name`).
 */
export const registerListCommand: RegisterCommand = (program, context) => {
  withCommonOptions(program.command("list").description("list all memories, newest first")).action(
    async (options: CommonOptions) => {
      const location = await locationFromOptions(options, context);
      // Newest first by saved time (`modified`, else mtime): what the listed times say.
      const headers = [...(await memdirForCommand(location, context).scan())].sort(
        (a, b) => savedAtMs(b) - savedAtMs(a),
      );
      if (options.json) {
        printJson(
          context.io,
          headers.map((h) => ({
            file: h.file,
            path: h.path,
            type: h.type,
            description: h.description,
            mtime: isoTime(h.mtimeMs),
          })),
        );
        return;
      }
      if (headers.length === 0) {
        context.io.stdout(`no memories in ${location.memoryDir}\n`);
        return;
      }
      context.io.stdout(`${headers.map(manifestLine).join("\n")}\n`);
    },
  );
};
