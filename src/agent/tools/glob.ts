import fs from "node:fs/promises";
import { z } from "zod";
import { matchesGlob } from "./glob-match.ts";
import { errorMessage, resolveToolPath, type ToolSpec, toolError } from "./spec.ts";
import { defaultEnter, walkFiles } from "./walk.ts";

/** At most this many paths are listed; the model narrows the pattern for more. */
const MAX_RESULTS = 100;

const inputSchema = z.object({
  pattern: z.string().min(1).describe('Glob pattern relative to path, e.g. "**/*.ts" or "src/*.md"'),
  path: z.string().optional().describe("Folder to search (default: the working directory)"),
});

/** `Glob`: files matching a pattern, newest first. `.git` and `node_modules` are skipped unless named. */
export const globTool: ToolSpec<z.infer<typeof inputSchema>> = {
  name: "Glob",
  description:
    "Find files by glob pattern (** spans folders, * and ? stay in one folder, {a,b} alternates). Returns absolute paths, most recently modified first.",
  inputSchema,
  readOnly: true,
  async handler(input, context) {
    const root = resolveToolPath(context, input.path ?? ".");
    try {
      const stat = await fs.stat(root);
      if (!stat.isDirectory()) return toolError(`Glob: ${root} is not a folder`);
    } catch (error) {
      return toolError(`Glob: ${root}: ${errorMessage(error)}`);
    }
    const matches: { path: string; mtimeMs: number }[] = [];
    try {
      for await (const file of walkFiles(root, {
        signal: context.signal,
        enter: defaultEnter(input.pattern),
      })) {
        if (!matchesGlob(file.relative, input.pattern)) continue;
        const mtimeMs = await fs.stat(file.absolute).then(
          (s) => s.mtimeMs,
          () => 0,
        );
        matches.push({ path: file.absolute, mtimeMs });
      }
    } catch (error) {
      return toolError(`Glob: ${errorMessage(error)}`);
    }
    if (matches.length === 0) return { content: `No files match ${input.pattern} under ${root}` };
    matches.sort((a, b) => b.mtimeMs - a.mtimeMs || a.path.localeCompare(b.path));
    const shown = matches.slice(0, MAX_RESULTS).map((m) => m.path);
    const more =
      matches.length > MAX_RESULTS
        ? `\n(${matches.length - MAX_RESULTS} more not shown; narrow the pattern)`
        : "";
    return { content: shown.join("\n") + more };
  },
};
