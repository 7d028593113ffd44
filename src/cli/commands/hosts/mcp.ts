import { optedInModel } from "../../../config.ts";
import { selectorOnFirstUse } from "../../../recall/select-on-first-use.ts";
import {
  type CommonOptions,
  type ModelOptions,
  type RegisterCommand,
  withModelOptions,
} from "../../support/common.ts";
import { configFromOptions, locationFromOptions } from "../../support/location.ts";

/**
 * `memdir mcp [--cwd --root --dir]`: an MCP server on stdio for the project's memory (the
 * client's working directory by default). stdout carries only JSON-RPC; logs go to stderr.
 * Recall is lexical offline and hybrid when memdir is configured for a model — never because
 * the host's own key is in the environment (docs/design.md#model-use-in-hooks).
 */
export const registerMcpCommand: RegisterCommand = (program, context) => {
  // The location options of every command, without --json: the output here is the protocol itself.
  withModelOptions(program.command("mcp"))
    .description("serve the project's memory to MCP clients over stdio (tools, resources, a prompt)")
    .option("--root <dir>", "memory root (default: $MEMDIR_ROOT, then ~/.claude)")
    .option("--cwd <dir>", "project directory to serve memory for (default: the current directory)")
    .option("--dir <memory-dir>", "use this memory directory directly, bypassing project resolution")
    .action(async (options: CommonOptions & ModelOptions) => {
      const resolved = configFromOptions(options, context);
      const config = { ...resolved, model: optedInModel(resolved.model) };
      const location = await locationFromOptions(options, context);
      // Hosts give a server ~1-3 s to answer its handshake (docs/design.md#mcp-server): the
      // server, the selector and the memory dir's instance load after this command is parsed,
      // and the recall engine on the first recall.
      const [{ serveStdio }, { openMemdir }] = await Promise.all([
        import("../../../mcp/stdio.ts"),
        import("../../../memdir/instance.ts"),
      ]);
      // The server process's instance, under the CLI's environment (MEMDIR_NO_WATCH and the rest).
      const memdir = openMemdir(location.memoryDir, { env: context.env });
      try {
        await serveStdio({
          location,
          config,
          selector: selectorOnFirstUse(config.model.provider === null ? "lexical" : "hybrid", async () => {
            const { selectorFromConfig } = await import("../../../recall/select-from-config.ts");
            return selectorFromConfig(undefined, config).selector;
          }),
          memdir,
          log: (line) => context.io.stderr(`${line}\n`),
        });
      } finally {
        await memdir.close();
      }
    });
};
