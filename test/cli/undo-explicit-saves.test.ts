// Every save made on a user's or agent's behalf is one history entry that `memdir undo` takes back
// exactly (docs/design.md#undo): `memdir remember`, the prompt hook's "remember …" and "forget …",
// the MCP server's memory_save, memory_update and memory_delete, and a background extraction
// (`memdir extract`, which the stop hook starts). Before, none of them recorded anything, so the
// undo that followed took back an older, unrelated change instead.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, describe, it } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { resolveConfig } from "../../src/config.ts";
import { createMemdirServer } from "../../src/mcp/server.ts";
import { resolveMemoryLocation, sanitizeProjectPath } from "../../src/memdir/location/paths.ts";
import { startFakeModelServer } from "../../src/testing/index.ts";
import { runCliInProcess } from "../helpers/cli.ts";
import { makeTempDir } from "../helpers/temp.ts";

/**
 * A project with two recorded changes before the one under test: an `add` that stays, and an
 * `rm` of a memory that must stay removed (an undo that took back the `rm` brought it back).
 */
async function projectWithHistory() {
  const home = makeTempDir("memdir-undo-saves-");
  const project = path.join(home, "shop");
  fs.mkdirSync(path.join(project, ".git"), { recursive: true });
  const memoryDir = path.join(home, ".claude", "projects", sanitizeProjectPath(project), "memory");
  const cli = async (...args: string[]) => {
    const result = await runCliInProcess([...args, "--cwd", project], { home });
    assert.equal(result.code, 0, `${args.join(" ")}: ${result.stderr}`);
    return result;
  };
  await cli(
    "add",
    "--type",
    "project",
    "--description",
    "release freeze starts Friday",
    "No merges after Friday noon.",
  );
  await cli(
    "add",
    "--type",
    "project",
    "--description",
    "the staging database is shared",
    "Ask before resetting it.",
  );
  await cli("rm", "project-staging-database-shared.md");
  return { home, project, memoryDir, cli, before: snapshotOf(memoryDir) };
}

/** Every memory file and the index, by name (dot-files aside: the history's own). */
function snapshotOf(memoryDir: string): Record<string, string> {
  return Object.fromEntries(
    fs
      .readdirSync(memoryDir)
      .filter((file) => file.endsWith(".md"))
      .sort()
      .map((file) => [file, fs.readFileSync(path.join(memoryDir, file), "utf8")]),
  );
}

async function undoJson(cli: (...args: string[]) => Promise<{ stdout: string }>) {
  return JSON.parse((await cli("undo", "--json")).stdout) as {
    undone: { kind: string; command: string; files: string[]; message: string };
  };
}

describe("undo right after a save made on the user's or agent's behalf", () => {
  it("memdir remember then memdir undo removes that memory and nothing else", async () => {
    const { memoryDir, cli, before } = await projectWithHistory();
    const saved = JSON.parse((await cli("remember", "use pnpm, not npm", "--json")).stdout) as {
      file: string;
    };
    assert.ok(fs.existsSync(path.join(memoryDir, saved.file)));

    const { undone } = await undoJson(cli);
    assert.equal(undone.kind, "remember");
    assert.equal(undone.command, "memdir remember");
    assert.deepEqual(undone.files.sort(), ["MEMORY.md", saved.file].sort());
    assert.deepEqual(snapshotOf(memoryDir), before, "the remembered memory is gone, the older changes stay");
  });

  it("does the same with the journal history (no git repository in the memory dir)", async () => {
    const home = makeTempDir("memdir-undo-saves-journal-");
    const memoryDir = path.join(home, "memory");
    // A `.history/` folder and no `.git`: the memory dir keeps the journal.
    fs.mkdirSync(path.join(memoryDir, ".history"), { recursive: true });
    const cli = async (...args: string[]) => {
      const result = await runCliInProcess([...args, "--dir", memoryDir], { home });
      assert.equal(result.code, 0, `${args.join(" ")}: ${result.stderr}`);
      return result;
    };
    await cli("add", "--type", "project", "--description", "release freeze starts Friday", "No merges.");
    const before = snapshotOf(memoryDir);
    await cli("remember", "use pnpm, not npm");
    const { undone } = await undoJson(cli);
    assert.equal(undone.kind, "remember");
    assert.deepEqual(snapshotOf(memoryDir), before);
    assert.ok(!fs.existsSync(path.join(memoryDir, ".git")));
  });

  it("memdir rm given an absolute path inside the memory dir is undone from the journal", async () => {
    const home = makeTempDir("memdir-undo-rm-absolute-");
    const memoryDir = path.join(home, "memory");
    fs.mkdirSync(path.join(memoryDir, ".history"), { recursive: true });
    const cli = async (...args: string[]) => {
      const result = await runCliInProcess([...args, "--dir", memoryDir], { home });
      assert.equal(result.code, 0, `${args.join(" ")}: ${result.stderr}`);
      return result;
    };
    await cli("add", "--type", "project", "--description", "release freeze starts Friday", "No merges.");
    const before = snapshotOf(memoryDir);
    await cli("rm", path.join(memoryDir, "project-release-freeze-starts-friday.md"));
    assert.deepEqual(Object.keys(snapshotOf(memoryDir)), ["MEMORY.md"]);
    await cli("undo");
    assert.deepEqual(snapshotOf(memoryDir), before, "the removed memory and its index line are back");
  });

  it("the prompt hook's remember: … and forget … are each one entry undo takes back", async () => {
    const { home, project, memoryDir, cli, before } = await projectWithHistory();
    const prompt = (text: string) =>
      runCliInProcess(["hook", "user-prompt-submit"], {
        home,
        input: JSON.stringify({
          hook_event_name: "UserPromptSubmit",
          session_id: "s1",
          cwd: project,
          prompt: text,
        }),
      });
    const saved = await prompt("remember: use pnpm, not npm");
    assert.equal(saved.code, 0, saved.stderr);
    assert.match(saved.stdout, /Saved feedback memory feedback-pnpm-not-npm\.md/);
    // The session that asked is recorded, as for a transcript's saves: `list --session` finds it.
    const listed = await cli("list", "--session", "s1", "--json");
    assert.deepEqual(
      (JSON.parse(listed.stdout) as { file: string }[]).map((memory) => memory.file),
      ["feedback-pnpm-not-npm.md"],
    );

    const { undone } = await undoJson(cli);
    assert.equal(undone.kind, "remember");
    assert.equal(undone.command, "memdir hook user-prompt-submit");
    assert.deepEqual(snapshotOf(memoryDir), before);

    // "forget the release freeze" alone reads as "never mind it" (docs/design.md#explicit-remember): it names the memory.
    const forgot = await prompt("forget the memory about the release freeze");
    assert.match(forgot.stdout, /Forgot project-release-freeze-starts-friday\.md/);
    assert.ok(!fs.existsSync(path.join(memoryDir, "project-release-freeze-starts-friday.md")));
    const second = await undoJson(cli);
    assert.equal(second.undone.kind, "forget");
    assert.deepEqual(snapshotOf(memoryDir), before, "the forgotten memory and its index line are back");
  });

  it("the MCP server's memory_save, memory_update and memory_delete are each one entry undo takes back", async () => {
    const { home, project, memoryDir, cli, before } = await projectWithHistory();
    const env = { HOME: home };
    const location = await resolveMemoryLocation({ cwd: project, home, env });
    assert.equal(location.memoryDir, memoryDir);
    const server = createMemdirServer({ location, config: resolveConfig({ cwd: project, home, env }) });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: "memdir-test", version: "0.0.0" });
    await client.connect(clientSide);
    const call = async (name: string, args: Record<string, unknown>) => {
      const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
      assert.notEqual(result.isError, true, JSON.stringify(result.content));
      return result.structuredContent as { file: string };
    };
    try {
      const saved = await call("memory_save", {
        type: "feedback",
        description: "use pnpm, not npm",
        content: "Use pnpm.\nWhy: the lockfile is pnpm's.",
      });
      const afterSave = snapshotOf(memoryDir);
      const first = await undoJson(cli);
      assert.equal(first.undone.command, "memdir mcp (memory_save)");
      assert.deepEqual(snapshotOf(memoryDir), before, "the saved memory is gone, the rm stays");

      await call("memory_update", {
        file: "project-release-freeze-starts-friday.md",
        content: "No merges after Thursday noon.",
      });
      assert.match(
        fs.readFileSync(path.join(memoryDir, "project-release-freeze-starts-friday.md"), "utf8"),
        /Thursday/,
      );
      assert.equal((await undoJson(cli)).undone.command, "memdir mcp (memory_update)");
      assert.deepEqual(snapshotOf(memoryDir), before, "the replaced text is back byte for byte");

      await call("memory_delete", { file: "project-release-freeze-starts-friday.md" });
      assert.equal((await undoJson(cli)).undone.command, "memdir mcp (memory_delete)");
      assert.deepEqual(snapshotOf(memoryDir), before);
      assert.ok(saved.file in afterSave);
    } finally {
      await client.close();
      await server.close();
    }
  });

  it("a background extraction's run is one entry undo takes back", async () => {
    const { home, project, memoryDir, cli, before } = await projectWithHistory();
    const transcript = path.join(home, "session-1.jsonl");
    fs.writeFileSync(
      transcript,
      [
        { id: "m1", role: "user", content: "integration tests must hit a real database, never a mock" },
        { id: "m2", role: "assistant", content: [{ type: "text", text: "Understood." }] },
      ]
        .map((message) => JSON.stringify({ type: "message", sessionId: "session-1", message }))
        .join("\n"),
    );
    const server = await startFakeModelServer([
      {
        toolCall: {
          name: "Write",
          input: {
            file_path: path.join(memoryDir, "feedback-real-database.md"),
            content: "---\ndescription: tests hit a real database\ntype: feedback\n---\nNever mock it.\n",
          },
        },
      },
      "Saved one memory.",
    ]);
    after(() => server.close());
    const extracted = await runCliInProcess(
      ["extract", "--transcript", transcript, "--cwd", project, "--json"],
      {
        home,
        cwd: project,
        env: { ANTHROPIC_API_KEY: "test-key", ANTHROPIC_BASE_URL: server.anthropicBaseURL },
      },
    );
    assert.equal(extracted.code, 0, extracted.stderr);
    assert.deepEqual(JSON.parse(extracted.stdout).saved, ["feedback-real-database.md"]);

    const { undone } = await undoJson(cli);
    assert.equal(undone.kind, "extract");
    assert.equal(undone.command, "memdir extract");
    assert.deepEqual(snapshotOf(memoryDir), before, "the extracted memory is gone, the older changes stay");
  });

  it("an undo with nothing to undo leaves the history as it found it", async () => {
    const home = makeTempDir("memdir-undo-nothing-");
    const project = path.join(home, "shop");
    fs.mkdirSync(path.join(project, ".git"), { recursive: true });
    const memoryDir = path.join(home, ".claude", "projects", sanitizeProjectPath(project), "memory");
    fs.mkdirSync(memoryDir, { recursive: true });
    // A hand-written memory: recorded by no command, so nothing to undo by default.
    fs.writeFileSync(
      path.join(memoryDir, "notes.md"),
      "---\ntype: user\ndescription: hand written\n---\nhi\n",
    );
    const run = (...args: string[]) => runCliInProcess([...args, "--cwd", project], { home });
    const nothing = await run("undo");
    assert.equal(nothing.code, 1);
    assert.match(nothing.stderr, /nothing to undo/);
    const history = await run("history", "--json");
    assert.equal(history.code, 0, history.stderr);
    assert.deepEqual(JSON.parse(history.stdout).entries, [], "no stray snapshot: state before undo");
  });
});
