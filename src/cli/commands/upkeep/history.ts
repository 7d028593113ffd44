import { historyBackend, listHistory } from "../../../dream/history.ts";
import type { HistoryEntry } from "../../../dream/history-types.ts";
import { type CommonOptions, type RegisterCommand, withCommonOptions } from "../../support/common.ts";
import { locationFromOptions } from "../../support/location.ts";
import { printable, printJson } from "../../support/output.ts";

const MARK = { added: "+", modified: "~", deleted: "-" } as const;

/** One entry as text: `id  time  kind: message`, then one line per file. */
export function formatHistoryEntry(entry: HistoryEntry): string {
  const undone = entry.undoneBy ? `  (undone by ${entry.undoneBy})` : "";
  const lines = [`${entry.id}  ${entry.at}  ${entry.kind}: ${entry.message}${undone}`];
  for (const change of entry.changes) lines.push(`    ${MARK[change.change]} ${change.file}`);
  return lines.join("\n");
}

/** `memdir history`: consolidations, saves and undos recorded in the memory dir, newest first. */
export const registerHistoryCommand: RegisterCommand = (program, context) => {
  withCommonOptions(
    program
      .command("history")
      .description("list recorded changes to the memory directory (consolidations, saves, undos)"),
  ).action(async (options: CommonOptions) => {
    const location = await locationFromOptions(options, context);
    const entries = await listHistory(location.memoryDir);
    if (options.json) {
      printJson(context.io, { backend: await historyBackend(location.memoryDir), entries });
      return;
    }
    if (entries.length === 0) {
      context.io.stdout(
        "no history yet: it starts with the first change memdir makes here (a save, an edit, an rm or forget, a sync's pull, a dream)\n",
      );
      return;
    }
    context.io.stdout(printable(`${entries.map(formatHistoryEntry).join("\n")}\n`));
  });
};
