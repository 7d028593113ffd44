import type { Readable, Writable } from "node:stream";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { openMemdir } from "../memdir/instance.ts";
import { createMemdirServer, type MemdirServerOptions } from "./server.ts";

export interface StdioServerOptions extends MemdirServerOptions {
  /** Default `process.stdin`. */
  stdin?: Readable;
  /** Default `process.stdout`. */
  stdout?: Writable;
  /** Where log lines go (never stdout: it carries only JSON-RPC). */
  log?: (line: string) => void;
}

/**
 * Serves memdir over stdio until the client closes stdin (the MCP stdio transport): stdout
 * carries only JSON-RPC messages, so anything a library prints with `console.log` is sent to
 * stderr while the server runs. Resolves when the connection is closed.
 *
 * @example
 * await serveStdio({ location, config, selector });
 */
export async function serveStdio(options: StdioServerOptions): Promise<void> {
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const stdin = options.stdin ?? process.stdin;
  const restoreConsole = keepConsoleOffStdout();
  // The process's instance of the served memory dir: its folder watchers end with the connection.
  const memdir = options.memdir ?? openMemdir(options.location.memoryDir, { clock: options.now });
  const server = createMemdirServer({ ...options, memdir });
  const transport = new StdioServerTransport(stdin, options.stdout ?? process.stdout);
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
  });
  transport.onerror = (error) => log(`memdir mcp: ${error.message}`);
  // The SDK's stdio transport does not watch for the end of stdin; a client that goes away must
  // still let this process exit.
  stdin.on("end", () => {
    void server.close();
  });
  // connect() keeps the onclose/onerror set above and runs the server's own after them.
  await server.connect(transport);
  log(`memdir mcp: serving ${options.location.memoryDir}`);
  try {
    await closed;
  } finally {
    restoreConsole();
    if (options.memdir === undefined) await memdir.close();
  }
}

/** Sends `console.log/info/debug` to stderr; returns a function that undoes it. */
function keepConsoleOffStdout(): () => void {
  const saved = { log: console.log, info: console.info, debug: console.debug };
  console.log = console.error;
  console.info = console.error;
  console.debug = console.error;
  return () => Object.assign(console, saved);
}
