import { undoChange } from "../../../dream/history.ts";
import { commandOf, type HistoryEntry } from "../../../dream/history-types.ts";
import { type CommonOptions, type RegisterCommand, withCommonOptions } from "../../support/common.ts";
import { locationFromOptions } from "../../support/location.ts";
import { printJson } from "../../support/output.ts";
import { formatHistoryEntry } from "./history.ts";

/** The undone entry as `memdir undo --json` prints it: the entry, what command made it, its files. */
function undoneReport(entry: HistoryEntry) {
  return { ...entry, command: commandOf(entry), files: entry.changes.map((change) => change.file) };
}

/**
 * `memdir undo [id]`: takes back one recorded change (default: the newest not yet undone) as a
 * new history entry, exactly (docs/design.md#undo): its memory files get their prior text back,
 * `MEMORY.md` only the lines it changed; refused, naming the later entry, when a later change
 * touched the same file. Says which entry it undid: id, command, time, files.
 */
export const registerUndoCommand: RegisterCommand = (program, context) => {
  withCommonOptions(
    program
      .command("undo")
      .description("undo a recorded change (default: the newest one not yet undone)")
      .argument("[id]", "history entry id (see memdir history)"),
  ).action(async (id: string | undefined, options: CommonOptions) => {
    const location = await locationFromOptions(options, context);
    const { undone, entry } = await undoChange(location.memoryDir, id);
    if (options.json) {
      printJson(context.io, { undone: undoneReport(undone), entry });
      return;
    }
    const files = undone.changes.map((change) => change.file).join(", ");
    context.io.stdout(
      `undid ${undone.id} (${commandOf(undone)}, ${undone.at}): ${undone.kind}: ${undone.message}` +
        `${files ? `; files: ${files}` : ""}\n`,
    );
    if (entry) context.io.stdout(`${formatHistoryEntry(entry)}\n`);
    else context.io.stdout("the files were already as they were before it; nothing to restore\n");
  });
};
