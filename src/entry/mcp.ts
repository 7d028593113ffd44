/**
 * `memdir/mcp` — the MCP server over one memory directory (the tools `memdir mcp` serves), and
 * serving it on stdio. The only entry that loads `@modelcontextprotocol/sdk`.
 *
 * @example
 * import { resolveMemoryLocation } from "memdir";
 * import { resolveConfig } from "memdir/config";
 * import { serveStdio } from "memdir/mcp";
 * const cwd = process.cwd();
 * await serveStdio({ location: await resolveMemoryLocation({ cwd }), config: resolveConfig({ cwd }) });
 */

export { createMemdirServer, type MemdirServerOptions } from "../mcp/server.ts";
export { type StdioServerOptions, serveStdio } from "../mcp/stdio.ts";
