// Faults: special files where memdir expects a regular one (docs/design.md#reading-files). A FIFO named like a
// memory or `MEMORY.md` used to hang `show`, `doctor`, `context`, `add` and MCP `memory_read` (after
// five reads the server stopped answering and outlived its client). Every child runs under a
// bound: a hang fails the test (killed, exit code null) instead of blocking the suite.
import assert from "node:assert/strict";
import { type ChildProcessWithoutNullStreams, spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { ReadBuffer, serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { CallToolResult, JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { type CliResult, runCli } from "../helpers/cli.ts";
import { memory, writeMemory } from "../helpers/memory.ts";
import { cliNodeArgs } from "../helpers/node-entry.ts";
import { recordBoundedRun, withinBound } from "../helpers/reliability-counts.ts";
import { makeTempDir } from "../helpers/temp.ts";

/** A bound for one CLI child on a loaded 2-core machine; a hang is killed at it. */
const CHILD_BOUND_MS = 20_000;

function mkfifo(file: string): void {
  const made = spawnSync("mkfifo", [file], { encoding: "utf8" });
  assert.equal(made.status, 0, `mkfifo ${file}: ${made.stderr}`);
}

/** A memory dir with one real memory and its index line. */
function memoryDirWithOne(): { home: string; memoryDir: string } {
  const home = makeTempDir("memdir-fifo-");
  const memoryDir = path.join(home, "memory");
  writeMemory(memoryDir, "feedback-real-db.md", memory("tests hit a real database", "Never mock it."));
  fs.writeFileSync(
    path.join(memoryDir, "MEMORY.md"),
    "- [Real DB](feedback-real-db.md) — tests hit a real database\n",
  );
  return { home, memoryDir };
}

function assertExitedWithOneLine(result: CliResult, what: string): void {
  assert.notEqual(result.code, null, `${what} hung (killed at ${CHILD_BOUND_MS} ms)`);
  assert.equal(result.code, 1, `${what}: exit code (stderr: ${result.stderr})`);
  assert.match(result.stderr, /^memdir: .*named pipe \(FIFO\), not a regular file/, what);
  assert.equal(result.stderr.trim().split("\n").length, 1, `${what}: one line, no stack trace`);
}

describe("special files instead of memory files", () => {
  it("`memdir show` refuses a FIFO memory file at once instead of hanging", async () => {
    const { home, memoryDir } = memoryDirWithOne();
    mkfifo(path.join(memoryDir, "x.md"));
    const result = await runCli(["show", "--dir", memoryDir, "x.md"], { home, timeoutMs: CHILD_BOUND_MS });
    recordBoundedRun("faults", result);
    assertExitedWithOneLine(result, "show x.md on a FIFO");
  });

  for (const command of [
    ["doctor"],
    ["context"],
    ["add", "--type", "user", "--description", "prefers short answers", "Keep replies short."],
  ]) {
    it(`\`memdir ${command[0]}\` refuses a FIFO MEMORY.md and loses nothing`, async () => {
      const { home, memoryDir } = memoryDirWithOne();
      const indexPath = path.join(memoryDir, "MEMORY.md");
      fs.rmSync(indexPath);
      mkfifo(indexPath);
      const result = await runCli([command[0], "--dir", memoryDir, ...command.slice(1)], {
        home,
        timeoutMs: CHILD_BOUND_MS,
      });
      recordBoundedRun("faults", result, {
        losses: fs.existsSync(path.join(memoryDir, "feedback-real-db.md")) ? 0 : 1,
      });
      assertExitedWithOneLine(result, `${command[0]} with a FIFO MEMORY.md`);
      assert.ok(fs.statSync(indexPath).isFIFO(), "the FIFO is left as it was");
      assert.deepEqual(
        fs
          .readdirSync(memoryDir)
          .filter((name) => name.endsWith(".md"))
          .sort(),
        ["MEMORY.md", "feedback-real-db.md"],
        "no memory was written without its index line",
      );
    });
  }
});

/**
 * The client side of the MCP stdio transport over a child this test spawned itself, so the test
 * decides how the client goes away (the SDK's StdioClientTransport kills its child on close,
 * which would hide a server that does not exit on its own).
 */
function childTransport(child: ChildProcessWithoutNullStreams): Transport {
  const buffer = new ReadBuffer();
  const transport: Transport = {
    async start() {
      child.stdout.on("data", (chunk: Buffer) => {
        buffer.append(chunk);
        for (let message = buffer.readMessage(); message; message = buffer.readMessage())
          transport.onmessage?.(message);
      });
      child.on("close", () => transport.onclose?.());
    },
    async send(message: JSONRPCMessage) {
      child.stdin.write(serializeMessage(message));
    },
    async close() {
      child.stdin.end();
    },
  };
  return transport;
}

function text(result: CallToolResult): string {
  return result.content.map((block) => (block.type === "text" ? block.text : "")).join("\n");
}

/** `memdir mcp` on `memoryDir` as a real child, with a connected MCP client. */
async function startServer(home: string, memoryDir: string) {
  const child = spawn(process.execPath, [...cliNodeArgs(), "mcp", "--dir", memoryDir], {
    cwd: home,
    env: { PATH: process.env.PATH ?? "", HOME: home, NO_COLOR: "1", MEMDIR_NO_WATCH: "1" },
    stdio: ["pipe", "pipe", "pipe"],
  });
  child.stderr.resume();
  const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
  const killer = setTimeout(() => child.kill("SIGKILL"), 60_000);
  const client = new Client({ name: "special-files", version: "0" });
  const call = async (name: string, args: Record<string, unknown>) =>
    (await client.callTool({ name, arguments: args }, undefined, {
      // Past the tests' own bound (withinBound), which counts a hang.
      timeout: 2 * CHILD_BOUND_MS,
    })) as CallToolResult;
  const stop = () => {
    clearTimeout(killer);
    child.kill("SIGKILL");
  };
  try {
    await client.connect(childTransport(child), { timeout: CHILD_BOUND_MS });
  } catch (error) {
    stop();
    throw error;
  }
  return { child, exited, call, stop };
}

describe("MCP memory_read on special and huge files", () => {
  it("refuses a FIFO every time, keeps answering, and the server exits when its client goes away", async () => {
    const { home, memoryDir } = memoryDirWithOne();
    mkfifo(path.join(memoryDir, "pipe.md"));
    const server = await startServer(home, memoryDir);
    try {
      // Eight reads: more than libuv's four threads, which blocked opens used to exhaust.
      for (let attempt = 0; attempt < 8; attempt++) {
        const result = await withinBound(
          "faults",
          CHILD_BOUND_MS,
          () => server.call("memory_read", { file: "pipe.md" }),
          `memory_read of the FIFO (${attempt + 1})`,
        );
        assert.equal(result.isError, true, `read ${attempt + 1} of the FIFO is refused`);
        assert.match(text(result), /pipe\.md is not a memory: .*named pipe \(FIFO\)/);
      }
      const list = await server.call("memory_list", {});
      assert.match(text(list), /feedback-real-db\.md/, "the server still answers other tools");
      server.child.stdin.end(); // the client goes away
      const code = await withinBound("faults", CHILD_BOUND_MS, () => server.exited, "the server's exit");
      assert.equal(code, 0, "the server exits on its own when stdin closes");
    } finally {
      server.stop();
    }
  });

  it("reads only the part it returns of a 3 GB memory", async () => {
    const { home, memoryDir } = memoryDirWithOne();
    // Sparse: 3 GB on paper, a few KB on disk. Read whole, it is past Node's 2 GB buffer limit
    // (ERR_FS_FILE_TOO_LARGE); read as far as the 100,000-character cut, it is 300 KB.
    const huge = path.join(memoryDir, "reference-huge.md");
    fs.writeFileSync(huge, `${memory("a huge log pasted by mistake", "first line of the log")}`);
    fs.truncateSync(huge, 3 * 1024 ** 3);
    const server = await startServer(home, memoryDir);
    try {
      const result = await withinBound(
        "faults",
        CHILD_BOUND_MS,
        () => server.call("memory_read", { file: "reference-huge.md" }),
        "memory_read of the 3 GB memory",
      );
      assert.notEqual(result.isError, true, text(result));
      const output = result.structuredContent as { text: string; description: string };
      assert.equal(output.description, "a huge log pasted by mistake");
      assert.match(output.text, /first line of the log/);
      assert.match(output.text, /\(cut at 100000 characters; the whole file is .*reference-huge\.md\)\n$/);
      assert.ok(output.text.length < 100_200, `returned ${output.text.length} characters`);
    } finally {
      server.stop();
    }
  });
});
