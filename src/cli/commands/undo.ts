import { undoChange } from "../../dream/history.ts";
import { type CommonOptions, type RegisterCommand, withCommonOptions } from "../common.ts";
import { locationFromOptions } from "../location.ts";
import { printJson } from "../output.ts";
import { formatHistoryEntry } from "./history.ts";

/**
 * `memdir undo [id]`: takes back one recorded change (the last consolidation by default) as a new
 * history entry; what it removed comes back, what it rewrote gets its prior text.
 */
export const registerUndoCommand: RegisterCommand = (program, context) => {
  withCommonOptions(
    program
      .command("undo")
      .description("undo a recorded change (default: the most recent consolidation or save not yet undone)")
      .argument("[id]", "history entry id (see memdir history)"),
  ).action(async (id: string | undefined, options: CommonOptions) => {
    const location = await locationFromOptions(options, context);
    const { undone, entry } = await undoChange(location.memoryDir, id);
    if (options.json) {
      printJson(context.io, { undone, entry });
      return;
    }
    context.io.stdout(`undid ${undone.id} (${undone.kind}: ${undone.message})\n`);
    if (entry) context.io.stdout(`${formatHistoryEntry(entry)}\n`);
    else context.io.stdout("the files were already as they were before it; nothing to restore\n");
  });
};
