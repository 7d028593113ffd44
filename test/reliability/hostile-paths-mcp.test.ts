// The shared hostile-path table (hostile-path-cases.ts) against every entry point that takes a file name from
// a client: the MCP tools and resource (through the real MCP client, in-process transport) and the
// CLI commands `show`, `rm`, `add --file`. The CLI runs in-process through `main()` — the same code
// the binary runs — because ~45 cases × 3 commands as child processes would take minutes, and a
// NUL byte cannot even be passed in a child's argv; one case per command also runs as a child.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { main } from "../../src/cli/main.ts";
import { resolveConfig } from "../../src/config.ts";
import { createMemdirServer } from "../../src/mcp/server.ts";
import { resolveMemoryLocation } from "../../src/memdir/location/paths.ts";
import { runCli } from "../helpers/cli.ts";
import { counted } from "../helpers/reliability-counts.ts";
import {
  HOSTILE_PATH_CASES,
  type HostileCase,
  type HostileFixture,
  makeHostileFixture,
  prepareHostileCase,
  snapshotOutside,
} from "./hostile-path-cases.ts";

/** A connected MCP client for a server on `memoryDir`. */
async function connect(fixture: HostileFixture, memoryDir: string): Promise<Client> {
  const env = { HOME: fixture.base };
  const location = await resolveMemoryLocation({
    cwd: fixture.base,
    dir: memoryDir,
    env,
    home: fixture.base,
  });
  const config = resolveConfig({ cwd: fixture.base, home: fixture.base, env });
  const server = createMemdirServer({ location, config });
  const [serverSide, clientSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "hostile", version: "0" });
  await client.connect(clientSide);
  return client;
}

/** Runs `attempt` on a fresh fixture and checks that nothing outside the memory dir (nor the index) changed. */
function expectNothingOutside(
  testCase: HostileCase,
  attempt: (fixture: HostileFixture, memoryDir: string, requested: string) => Promise<void>,
): Promise<void> {
  return counted("escapes", () => nothingOutside(testCase, attempt));
}

async function nothingOutside(
  testCase: HostileCase,
  attempt: (fixture: HostileFixture, memoryDir: string, requested: string) => Promise<void>,
): Promise<void> {
  const fixture = makeHostileFixture();
  const { memoryDir, requested } = prepareHostileCase(testCase, fixture);
  const before = snapshotOutside(fixture);
  const indexBefore = fs.readFileSync(path.join(fixture.memoryDir, "MEMORY.md"), "utf8");
  await attempt(fixture, memoryDir, requested);
  assert.deepEqual(
    snapshotOutside(fixture),
    before,
    `${testCase.name}: something outside the memory dir changed`,
  );
  assert.equal(
    fs.readFileSync(path.join(fixture.memoryDir, "MEMORY.md"), "utf8"),
    indexBefore,
    `${testCase.name}: MEMORY.md changed although the call was refused`,
  );
}

function resultText(result: CallToolResult): string {
  return result.content.map((block) => (block.type === "text" ? block.text : "")).join("\n");
}

const TOOL_CALLS: { tool: string; args: (requested: string) => Record<string, unknown> }[] = [
  { tool: "memory_read", args: (file) => ({ file }) },
  { tool: "memory_delete", args: (file) => ({ file }) },
  {
    tool: "memory_save",
    args: (file) => ({
      file,
      type: "feedback",
      description: "a hostile write attempt",
      content: "must not land",
    }),
  },
];

describe("hostile paths through the MCP server", () => {
  for (const { tool, args } of TOOL_CALLS) {
    describe(`${tool} refuses as an isError result and touches nothing outside`, () => {
      for (const testCase of HOSTILE_PATH_CASES) {
        it(testCase.name, () =>
          expectNothingOutside(testCase, async (fixture, memoryDir, requested) => {
            const client = await connect(fixture, memoryDir);
            try {
              const result = (await client.callTool({
                name: tool,
                arguments: args(requested),
              })) as CallToolResult;
              assert.equal(result.isError, true, `${tool} accepted ${JSON.stringify(requested)}`);
              assert.doesNotMatch(
                resultText(result),
                /original victim content/,
                "nothing from outside is shown",
              );
            } finally {
              await client.close();
            }
          }),
        );
      }
    });
  }

  describe("memory://file/{+file} refuses to read", () => {
    for (const testCase of HOSTILE_PATH_CASES) {
      it(testCase.name, () =>
        expectNothingOutside(testCase, async (fixture, memoryDir, requested) => {
          const client = await connect(fixture, memoryDir);
          try {
            await assert.rejects(
              client.readResource({ uri: `memory://file/${encodeURIComponent(requested)}` }),
            );
          } finally {
            await client.close();
          }
        }),
      );
    }
  });
});

/** Runs the CLI in-process with captured output; HOME is the fixture's base. */
async function cli(
  args: string[],
  fixture: HostileFixture,
): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  const code = await main(["node", "memdir", ...args], {
    io: {
      stdout: (text) => {
        stdout += text;
      },
      stderr: (text) => {
        stderr += text;
      },
      stdin: async () => "",
    },
    env: { HOME: fixture.base, PATH: process.env.PATH },
  });
  return { code, stdout, stderr };
}

const CLI_CALLS: { command: string; args: (requested: string, memoryDir: string) => string[] }[] = [
  { command: "show", args: (file, dir) => ["show", file, "--dir", dir] },
  { command: "rm", args: (file, dir) => ["rm", file, "--dir", dir] },
  {
    command: "add --file",
    args: (file, dir) => [
      "add",
      "--type",
      "feedback",
      "--description",
      "a hostile write attempt",
      "--file",
      file,
      "--dir",
      dir,
      "must not land",
    ],
  },
];

describe("hostile paths through the CLI", () => {
  for (const { command, args } of CLI_CALLS) {
    describe(`memdir ${command} exits 1 with the reason and touches nothing outside`, () => {
      for (const testCase of HOSTILE_PATH_CASES) {
        it(testCase.name, () =>
          expectNothingOutside(testCase, async (fixture, memoryDir, requested) => {
            const result = await cli(args(requested, memoryDir), fixture);
            assert.equal(
              result.code,
              1,
              `memdir ${command} accepted ${JSON.stringify(requested)}: ${result.stdout}`,
            );
            assert.match(result.stderr, /memdir: /);
            assert.doesNotMatch(result.stdout, /original victim content/);
          }),
        );
      }
    });
  }

  it("refuses the same way as a real child process", async () => {
    const testCase = HOSTILE_PATH_CASES.find((candidate) => candidate.name === "parent segment")!;
    await expectNothingOutside(testCase, async (fixture, memoryDir, requested) => {
      for (const { command, args } of CLI_CALLS) {
        const result = await runCli(args(requested, memoryDir), { home: fixture.base });
        assert.equal(result.code, 1, `memdir ${command}: ${result.stdout}`);
        assert.match(result.stderr, /outside the memory directory|\.\./);
      }
    });
  });
});
