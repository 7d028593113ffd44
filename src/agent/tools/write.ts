import { z } from "zod";
import { recordRead } from "./read.ts";
import { errorMessage, resolveToolPath, type ToolSpec, toolError } from "./spec.ts";
import { writeFileForTool } from "./write-file.ts";

const inputSchema = z.object({
  file_path: z
    .string()
    .min(1)
    .describe("Absolute path of the file to write (relative paths resolve against the working directory)"),
  content: z.string().describe("The whole new content of the file"),
});

/** `Write`: creates or replaces a whole file. Memory-dir files go through the single writer. */
export const writeTool: ToolSpec<z.infer<typeof inputSchema>> = {
  name: "Write",
  description:
    "Write a file, replacing it if it exists and creating parent folders. Use Edit for small changes to an existing file.",
  inputSchema,
  readOnly: false,
  async handler(input, context) {
    const absolutePath = resolveToolPath(context, input.file_path);
    try {
      const written = await writeFileForTool(context, absolutePath, input.content);
      // The model knows what it just wrote: count it as read so recall does not surface it back.
      await recordRead(context, written.writtenPath);
      const lines = input.content === "" ? 0 : input.content.replace(/\n$/, "").split("\n").length;
      const verb = written.created ? "Created" : "Replaced";
      const warning = [written.indexWarning, written.warning]
        .filter(Boolean)
        .map((line) => `\nWarning: ${line}`)
        .join("");
      return {
        content: `${verb} ${written.writtenPath} (${lines} lines)${warning}`,
        writtenPath: written.writtenPath,
        memoryFile: written.memoryFile,
      };
    } catch (error) {
      return toolError(`Write: ${absolutePath}: ${errorMessage(error)}`);
    }
  },
};
