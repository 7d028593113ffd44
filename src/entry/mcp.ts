/**
 * `memdir/mcp` — the MCP server over one memory directory (the tools `memdir mcp` serves), and
 * serving it on stdio. The only entry that loads `@modelcontextprotocol/sdk`.
 *
 * @example
 * import { serveStdio } from "memdir/mcp";
 * await serveStdio({ memoryDir });
 */

export { createMemdirServer, type MemdirServerOptions } from "../mcp/server.ts";
export { type StdioServerOptions, serveStdio } from "../mcp/stdio.ts";
