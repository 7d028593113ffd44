import { z } from "zod";
import { recordRead } from "./read.ts";
import { errorMessage, resolveToolPath, type ToolSpec, toolError } from "./spec.ts";
import { changeFileForTool } from "./write-file.ts";

const inputSchema = z.object({
  file_path: z
    .string()
    .min(1)
    .describe("Absolute path of the file to edit (relative paths resolve against the working directory)"),
  old_string: z.string().min(1).describe("Exact text to replace; must occur exactly once unless replace_all"),
  new_string: z.string().describe("Replacement text"),
  replace_all: z.boolean().optional().describe("Replace every occurrence (default false)"),
});

/** An expected Edit failure (no match, several matches): reported to the model as is. */
class EditRefused extends Error {}

function countOccurrences(text: string, needle: string): number {
  let count = 0;
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + needle.length)) count += 1;
  return count;
}

/**
 * `Edit`: exact string replacement. A prior `Read` is not required: the exact, unique match is
 * itself the guard against editing stale content (a changed file simply fails to match), and
 * the replacement is computed on the text read at write time (under the lock for `MEMORY.md`).
 */
export const editTool: ToolSpec<z.infer<typeof inputSchema>> = {
  name: "Edit",
  description:
    "Replace an exact string in a file. old_string must match the file exactly (whitespace included) and occur once, unless replace_all is true.",
  inputSchema,
  readOnly: false,
  async handler(input, context) {
    const absolutePath = resolveToolPath(context, input.file_path);
    if (input.old_string === input.new_string)
      return toolError("Edit: old_string and new_string are the same; nothing to change");
    let count = 0;
    const replace = (before: string | null): string => {
      if (before === null)
        throw new EditRefused(`Edit: ${absolutePath} does not exist (use Write to create a file)`);
      count = countOccurrences(before, input.old_string);
      if (count === 0)
        throw new EditRefused(
          `Edit: old_string not found in ${absolutePath}; Read the file and copy the text exactly`,
        );
      if (count > 1 && !input.replace_all)
        throw new EditRefused(
          `Edit: old_string occurs ${count} times in ${absolutePath}; add surrounding lines to make it unique, or set replace_all`,
        );
      return input.replace_all
        ? before.split(input.old_string).join(input.new_string)
        : before.replace(input.old_string, () => input.new_string);
    };
    try {
      const written = await changeFileForTool(context, absolutePath, replace);
      await recordRead(context, written.writtenPath);
      const replaced = count === 1 ? "1 occurrence" : `${count} occurrences`;
      const warning = [written.indexWarning, written.warning]
        .filter(Boolean)
        .map((line) => `\nWarning: ${line}`)
        .join("");
      return {
        content: `Edited ${written.writtenPath}: replaced ${replaced}${warning}`,
        writtenPath: written.writtenPath,
        memoryFile: written.memoryFile,
      };
    } catch (error) {
      if (error instanceof EditRefused) return toolError(error.message);
      return toolError(`Edit: ${absolutePath}: ${errorMessage(error)}`);
    }
  },
};
