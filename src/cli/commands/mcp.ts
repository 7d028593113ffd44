import { serveStdio } from "../../mcp/stdio.ts";
import { openMemdir } from "../../memdir/instance.ts";
import { selectorFromConfig } from "../../recall/select-from-config.ts";
import { type CommonOptions, type ModelOptions, type RegisterCommand, withModelOptions } from "../common.ts";
import { configFromOptions, locationFromOptions } from "../location.ts";

/**
 * `memdir mcp [--cwd --root --dir]`: an MCP server on stdio for the project's memory (the
 * client's working directory by default). stdout carries only JSON-RPC; logs go to stderr.
 * Recall is lexical offline and hybrid when a model is configured.
 */
export const registerMcpCommand: RegisterCommand = (program, context) => {
  // The location options of every command, without --json: the output here is the protocol itself.
  withModelOptions(program.command("mcp"))
    .description("serve the project's memory to MCP clients over stdio (tools, resources, a prompt)")
    .option("--root <dir>", "memory root (default: $MEMDIR_ROOT, then ~/.claude)")
    .option("--cwd <dir>", "project directory to serve memory for (default: the current directory)")
    .option("--dir <memory-dir>", "use this memory directory directly, bypassing project resolution")
    .action(async (options: CommonOptions & ModelOptions) => {
      const _home = context.env.HOME || undefined;
      const config = configFromOptions(options, context);
      const location = await locationFromOptions(options, context);
      const { selector } = selectorFromConfig(undefined, config);
      // The server process's instance, under the CLI's environment (MEMDIR_NO_WATCH and the rest).
      const memdir = openMemdir(location.memoryDir, { env: context.env });
      try {
        await serveStdio({
          location,
          config,
          selector,
          memdir,
          log: (line) =>
            context.io.stderr(`${line}
`),
        });
      } finally {
        await memdir.close();
      }
    });
};
