import fs from "node:fs";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { createMemoryTools } from "../agent/memory-tools/index.ts";
import { createToolContext } from "../agent/tools/spec.ts";
import type { ResolvedConfig } from "../config.ts";
import { type Memdir, openMemdir } from "../memdir/instance.ts";
import { ensureMemoryDir, type MemoryLocation, projectOf } from "../memdir/location/paths.ts";
import { mcpServerInstructions } from "../prompts/memory-rules.ts";
import { selectorOnFirstUse } from "../recall/select-on-first-use.ts";
import type { Selector } from "../recall/selector.ts";
import type { ChangeRecorder, Clock } from "../types.ts";
import { createInboxTools } from "./inbox-tools.ts";
import { registerMemoryResources } from "./resources.ts";
import { registerMemoryTools } from "./tools.ts";

export interface MemdirServerOptions {
  /** The memory this server serves (`resolveMemoryLocation`). */
  location: MemoryLocation;
  config: ResolvedConfig;
  /** Recall's selector; default the offline lexical one. The entry point picks hybrid when a model is configured. */
  selector?: Selector;
  now?: Clock;
  /**
   * The instance of `location.memoryDir` the tools and resources scan with; the caller closes it
   * (`serveStdio` does). Default: a private one without folder watchers.
   */
  memdir?: Memdir;
}

/** What the server tells a client about itself, in the `initialize` answer (shared rules: `prompts/memory-rules.ts`). */
export const SERVER_INSTRUCTIONS = mcpServerInstructions();

function packageVersion(): string {
  try {
    const text = fs.readFileSync(new URL("../../package.json", import.meta.url), "utf8");
    return (JSON.parse(text) as { version?: string }).version ?? "0.0.0";
  } catch {
    return "0.0.0";
  }
}

/**
 * The memory tools' recorder (`changeRecorder` of src/dream/history.ts), loaded on the first write
 * like the writer itself: the handshake does not wait for the history (docs/design.md#mcp-server).
 */
function recordOnFirstWrite(now: Clock): ChangeRecorder {
  return async (memoryDir, change, write) => {
    const { changeRecorder } = await import("../dream/history.ts");
    return changeRecorder({ command: "memdir mcp", now })(memoryDir, change, write);
  };
}

/**
 * An MCP server for one memory directory: the seven memory tools, the `memory://index` and
 * `memory://file/{+file}` resources, and the `remember` prompt. Transport-free: connect it to
 * stdio (`mcp/stdio.ts`) or, in tests, to an in-memory pair.
 *
 * @example
 * const server = createMemdirServer({ location: await resolveMemoryLocation({ cwd }), config: resolveConfig({ cwd }) });
 * await server.connect(new StdioServerTransport());
 */
export function createMemdirServer(options: MemdirServerOptions): McpServer {
  const { location, config } = options;
  const now = options.now ?? Date.now;
  const memdir = options.memdir ?? openMemdir(location.memoryDir, { clock: now, watch: false });
  const server = new McpServer(
    { name: "memdir", title: "memdir", version: packageVersion() },
    { instructions: SERVER_INSTRUCTIONS },
  );
  const tools = createMemoryTools({
    config,
    selector:
      options.selector ??
      selectorOnFirstUse("lexical", async () =>
        (await import("../recall/select-lexical.ts")).createLexicalSelector(),
      ),
    prepareMemoryDir: () => ensureMemoryDir(location),
    memdir,
    // A host starts its MCP server with the session: what was saved since is this session's.
    sessionStartedMs: now(),
  });
  const cwd = projectOf(location) ?? config.cwd;
  registerMemoryTools(server, [...tools, ...createInboxTools(config)], (signal) =>
    createToolContext({
      cwd,
      memoryDir: location.memoryDir,
      now,
      signal,
      origin: { source: "mcp", projectRoot: location.projectRoot },
      // Each write is one history entry, so `memdir undo` takes back exactly it (docs/design.md#undo).
      record: recordOnFirstWrite(now),
    }),
  );
  registerMemoryResources(server, location.memoryDir, memdir);
  server.registerPrompt(
    "remember",
    {
      title: "Remember this",
      description: "Save what the user just said as a long-term memory.",
      argsSchema: { statement: z.string().min(1).describe("What the user said that should be remembered") },
    },
    ({ statement }) => ({
      description: "Save a statement as a memory",
      messages: [{ role: "user", content: { type: "text", text: rememberPromptText(statement) } }],
    }),
  );
  // The tools and prompts never change while the server runs, so it does not claim to announce
  // changes to them; the resources (the memory files) do change, and every write announces it.
  server.server.registerCapabilities({ tools: { listChanged: false }, prompts: { listChanged: false } });
  return server;
}

/** The `remember` prompt's text: asks the model to save the statement with the save tool (named by what it does: hosts prefix tool names). Pure. */
export function rememberPromptText(statement: string): string {
  return [
    "The user asked you to remember this for future conversations:",
    "",
    statement,
    "",
    "Save it now with memdir's memory save tool. Pick the type: user (who they are, their preferences), feedback",
    "(a rule or correction about how to work), project (a decision or constraint not visible in the code) or",
    "reference (where outside information lives). Write a one-line description saying when the memory is",
    "useful, and put the statement itself, with the reason if they gave one (a line starting with Why:), in",
    "content. If a saved memory already covers it, change that one with the memory update tool instead of",
    "adding a duplicate. Then confirm in one short sentence what you saved.",
  ].join("\n");
}
