import { spawn } from "node:child_process";
import { MemdirError } from "../../../errors.ts";
import { startUiServer } from "../../../ui/server.ts";
import {
  type CommonOptions,
  type ModelOptions,
  type RegisterCommand,
  usageError,
  withCommonOptions,
  withModelOptions,
} from "../../support/common.ts";
import { configFromOptions, locationFromOptions } from "../../support/location.ts";
import { selectorForCommand } from "./recall.ts";

interface UiOptions extends CommonOptions, ModelOptions {
  port?: string;
  open?: boolean;
}

/**
 * A port that cannot be listened on, said as what to do: Node's `listen EADDRINUSE: address
 * already in use 127.0.0.1:8080` named no way out. Null for any other error.
 */
function listenFailure(error: unknown, port: number): MemdirError | null {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === "EADDRINUSE")
    return new MemdirError(
      "io",
      `ui: port ${port} on 127.0.0.1 is in use by another program; give another --port, or leave --port out for a free one`,
    );
  if (code === "EACCES")
    return new MemdirError(
      "io",
      `ui: port ${port} needs privileges this process does not have; give a port above 1023, or leave --port out for a free one`,
    );
  return null;
}

/** `--port` as a whole number 0-65535 (0: any free port), else a usage error. */
function parsePort(value: string | undefined): number {
  if (value === undefined) return 0;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65_535)
    throw usageError(`ui: --port must be a whole number from 0 to 65535, got "${value}"`);
  return port;
}

/** Opens `url` in the desktop's browser; a machine without one just keeps the printed URL. */
function openBrowser(url: string, log: (line: string) => void): void {
  const [command, args] =
    process.platform === "darwin"
      ? ["open", [url]]
      : process.platform === "win32"
        ? ["cmd", ["/c", "start", "", url]]
        : ["xdg-open", [url]];
  const child = spawn(command, args, { stdio: "ignore", detached: true });
  child.on("error", (error) =>
    log(`memdir: ui: could not open a browser (${error.message}); open the URL above`),
  );
  child.unref();
}

/**
 * `memdir ui [--port N] [--open] [--json]`: serves the local web view of the memory dir on
 * 127.0.0.1 until Ctrl-C or SIGTERM (docs/ui.md). Prints the URL with the run's token
 * (`--json`: `{"url": …}` on one line; every log line goes to stderr).
 */
export const registerUiCommand: RegisterCommand = (program, context) => {
  withModelOptions(
    withCommonOptions(
      program
        .command("ui")
        .description("open a local web view of the memories, recall, inbox, history and health")
        .option("--port <n>", "port on 127.0.0.1 (default: any free port)")
        .option("--open", "open the page in the default browser"),
    ),
  ).action(async (options: UiOptions) => {
    const port = parsePort(options.port);
    const location = await locationFromOptions(options, context);
    const { selector } = selectorForCommand(options, context);
    const log = (line: string) => context.io.stderr(`${line}\n`);
    // Listening before the URL is printed: a signal that comes before a handler kills the process
    // outright (the default action), without closing the server and the watchers.
    let stop = () => {};
    const stopped = new Promise<void>((resolve) => {
      stop = () => {
        process.off("SIGINT", stop);
        process.off("SIGTERM", stop);
        resolve();
      };
      process.once("SIGINT", stop);
      process.once("SIGTERM", stop);
    });
    const server = await startUiServer({
      memoryDir: location.memoryDir,
      root: location.root,
      port,
      selector,
      inboxExpiryDays: configFromOptions(options, context, location).inboxExpiryDays,
      env: context.env,
      log,
    }).catch((error: unknown) => {
      stop(); // no server to stop: the signal handlers go too
      throw listenFailure(error, port) ?? error;
    });
    if (options.json) context.io.stdout(`${JSON.stringify({ url: server.url })}\n`);
    else {
      context.io.stdout(`memdir ui: ${location.memoryDir}\n`);
      context.io.stdout(`open ${server.url}\n`);
      context.io.stdout("(Ctrl-C stops it)\n");
    }
    // Never the token: a browser's command line is readable by every local user (ps).
    if (options.open) openBrowser(server.openUrl(), log);
    await stopped;
    await server.close();
    log("memdir ui: stopped");
  });
};
