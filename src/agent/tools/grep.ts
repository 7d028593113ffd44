import fs from "node:fs/promises";
import { z } from "zod";
import { matchesGlob } from "./glob-match.ts";
import { looksBinary } from "./read.ts";
import { errorMessage, resolveToolPath, type ToolSpec, toolError } from "./spec.ts";
import { defaultEnter, walkFiles } from "./walk.ts";

/** Output bounds: enough to act on, small enough for the context window. */
const DEFAULT_MAX_MATCHES = 200;
const MAX_OUTPUT_CHARS = 30_000;
const MAX_LINE_CHARS = 300;
/** Bigger files are skipped (logs, bundles); the model can Read a range instead. */
const MAX_FILE_BYTES = 5 * 1024 * 1024;

const inputSchema = z.object({
  pattern: z.string().min(1).describe("JavaScript regular expression to search for"),
  path: z.string().optional().describe("File or folder to search (default: the working directory)"),
  glob: z
    .string()
    .optional()
    .describe('Only files matching this glob, e.g. "*.ts" (no slash: matches the file name anywhere)'),
  ignore_case: z.boolean().optional().describe("Case-insensitive search"),
  max_results: z
    .number()
    .int()
    .min(1)
    .max(1000)
    .optional()
    .describe(`At most this many matching lines (default ${DEFAULT_MAX_MATCHES})`),
});

/** `Grep`: matching lines as `path:line:text`, bounded. */
export const grepTool: ToolSpec<z.infer<typeof inputSchema>> = {
  name: "Grep",
  description:
    "Search file contents with a regular expression. Returns matching lines as path:line:text. Filter files with glob; .git and node_modules are skipped.",
  inputSchema,
  readOnly: true,
  async handler(input, context) {
    let regexp: RegExp;
    try {
      regexp = new RegExp(input.pattern, input.ignore_case ? "iu" : "u");
    } catch (error) {
      return toolError(
        `Grep: invalid regular expression ${JSON.stringify(input.pattern)}: ${errorMessage(error)}`,
      );
    }
    const root = resolveToolPath(context, input.path ?? ".");
    let files: AsyncIterable<{ absolute: string; relative: string }>;
    try {
      const stat = await fs.stat(root);
      files = stat.isDirectory()
        ? walkFiles(root, { signal: context.signal, enter: defaultEnter(input.glob) })
        : (async function* () {
            yield { absolute: root, relative: root.slice(root.lastIndexOf("/") + 1) };
          })();
    } catch (error) {
      return toolError(`Grep: ${root}: ${errorMessage(error)}`);
    }
    const maxMatches = input.max_results ?? DEFAULT_MAX_MATCHES;
    const lines: string[] = [];
    let outputChars = 0;
    let truncated = false;
    try {
      outer: for await (const file of files) {
        if (input.glob && !matchesGlob(file.relative, input.glob, { matchBase: true })) continue;
        const stat = await fs.stat(file.absolute).catch(() => null);
        if (!stat?.isFile() || stat.size > MAX_FILE_BYTES) continue;
        const buffer = await fs.readFile(file.absolute).catch(() => null);
        if (!buffer || looksBinary(buffer)) continue;
        const fileLines = buffer.toString("utf8").split(/\r?\n/);
        for (const [index, line] of fileLines.entries()) {
          if (!regexp.test(line)) continue;
          const shown = line.length > MAX_LINE_CHARS ? `${line.slice(0, MAX_LINE_CHARS)}…` : line;
          const entry = `${file.absolute}:${index + 1}:${shown}`;
          if (lines.length >= maxMatches || outputChars + entry.length > MAX_OUTPUT_CHARS) {
            truncated = true;
            break outer;
          }
          lines.push(entry);
          outputChars += entry.length + 1;
        }
      }
    } catch (error) {
      return toolError(`Grep: ${errorMessage(error)}`);
    }
    if (lines.length === 0) return { content: `No matches for ${input.pattern} under ${root}` };
    return { content: lines.join("\n") + (truncated ? "\n(more matches not shown; narrow the search)" : "") };
  },
};
