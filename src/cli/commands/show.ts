import { MemdirError } from "../../errors.ts";
import { parseFrontmatter } from "../../memdir/frontmatter.ts";
import { readRegularFile } from "../../memdir/regular-file.ts";
import { assertInsideMemoryDir } from "../../memdir/safe-path.ts";
import { isoTime } from "../../memdir/scan.ts";
import { type CommonOptions, type RegisterCommand, withCommonOptions } from "../common.ts";
import { locationFromOptions } from "../location.ts";
import { printJson } from "../output.ts";

/**
 * `memdir show <file>`: one memory, whole, as on disk. `--json`:
 * `{file, path, mtime, type, description, body, issues}` (issues: frontmatter problems, as text).
 */
export const registerShowCommand: RegisterCommand = (program, context) => {
  withCommonOptions(
    program
      .command("show")
      .description("print one memory file")
      .argument("<file>", "memory file, relative to the memory directory"),
  ).action(async (file: string, options: CommonOptions) => {
    const location = await locationFromOptions(options, context);
    const target = await assertInsideMemoryDir(location.memoryDir, file);
    let text: string;
    let mtimeMs: number;
    try {
      const { bytes, stat } = await readRegularFile(target.path);
      text = bytes.toString("utf8");
      mtimeMs = stat.mtimeMs;
    } catch (error) {
      if (error instanceof MemdirError) throw error;
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "ENOENT")
        throw new MemdirError("not-found", `show: no memory ${target.file} in ${location.memoryDir}`);
      throw new MemdirError("io", `show: cannot read ${target.path}: ${code ?? String(error)}`, {
        cause: error,
      });
    }
    if (!options.json) {
      context.io.stdout(text.endsWith("\n") ? text : `${text}\n`);
      return;
    }
    const parsed = parseFrontmatter(text);
    printJson(context.io, {
      file: target.file,
      path: target.path,
      mtime: isoTime(mtimeMs),
      type: parsed.type,
      description: parsed.description,
      body: parsed.body,
      issues: parsed.issues.map((issue) => issue.message),
    });
  });
};
