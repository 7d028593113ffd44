import { type McpServer, ResourceTemplate } from "@modelcontextprotocol/sdk/server/mcp.js";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { readMemoryFile } from "../agent/memory-tools/read.ts";
import { type Memdir, memdirFor } from "../memdir/instance.ts";

export const INDEX_RESOURCE_URI = "memory://index";
// `{+file}` (reserved expansion) so memories in sub-folders (`team/x.md`) keep their slashes.
export const FILE_RESOURCE_TEMPLATE = "memory://file/{+file}";
// The spec caps one completion answer at 100 values.
const MAX_COMPLETIONS = 100;

/** `memory://file/<file>` for a memory file relative to the memory dir (each segment percent-encoded). */
export function memoryFileUri(file: string): string {
  return `memory://file/${file.split("/").map(encodeURIComponent).join("/")}`;
}

/**
 * Registers `memory://index` (MEMORY.md as on disk) and `memory://file/{+file}` (one memory, with
 * a list of every memory). The file named in a URI is decoded once and then checked by
 * `resolveInsideMemoryDir` like every client-given path: a URI can never read outside the memory dir.
 */
export function registerMemoryResources(server: McpServer, memoryDir: string, memdir?: Memdir): void {
  server.registerResource(
    "memory-index",
    INDEX_RESOURCE_URI,
    {
      title: "Memory index (MEMORY.md)",
      description:
        "One line per saved memory: what each is and its file. Loaded at the start of every session.",
      mimeType: "text/markdown",
    },
    async (uri) => {
      const { readIndex } = await import("../memdir/format/index-file.ts");
      const index = await readIndex(memoryDir);
      return { contents: [{ uri: uri.href, mimeType: "text/markdown", text: index.raw }] };
    },
  );

  server.registerResource(
    "memory-file",
    new ResourceTemplate(FILE_RESOURCE_TEMPLATE, {
      // `completion/complete` for the `file` argument: the memory files starting with what was typed.
      complete: {
        file: async (typed) => {
          const { scanHeaders } = await import("../memdir/scan/scan.ts");
          const headers = await scanHeaders(memoryDir, { memdir: memdirFor(memdir, memoryDir) });
          const prefix = typed.toLowerCase();
          return headers
            .map((header) => header.file)
            .filter((file) => file.toLowerCase().startsWith(prefix))
            .sort()
            .slice(0, MAX_COMPLETIONS);
        },
      },
      list: async () => {
        const { scanHeaders } = await import("../memdir/scan/scan.ts");
        const headers = await scanHeaders(memoryDir, { memdir: memdirFor(memdir, memoryDir) });
        return {
          resources: headers.map((header) => ({
            uri: memoryFileUri(header.file),
            name: header.file,
            ...(header.description ? { description: header.description } : {}),
            mimeType: "text/markdown",
          })),
        };
      },
    }),
    {
      title: "Memory file",
      description: "One saved memory: frontmatter (type, description) and its text.",
      mimeType: "text/markdown",
    },
    async (uri, variables) => {
      const raw = Array.isArray(variables.file) ? variables.file.join(",") : (variables.file ?? "");
      let file: string;
      try {
        file = decodeURIComponent(raw);
      } catch {
        throw new McpError(
          ErrorCode.InvalidParams,
          `memdir: resource: ${uri.href} is not a valid memory URI`,
        );
      }
      const read = await readMemoryFile(memoryDir, file);
      if (!read.ok) throw new McpError(ErrorCode.InvalidParams, read.message);
      return { contents: [{ uri: uri.href, mimeType: "text/markdown", text: read.text }] };
    },
  );
}
