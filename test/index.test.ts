// The root export loads its implementation on first use (docs/design.md#lazy-entry): what a
// program does with `import … from "memdir"` must work exactly as with the functions it loads.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, describe, it } from "node:test";
import {
  createHybridSelector,
  createLexicalSelector,
  createModelSelector,
  isMemdirError,
  Memdir,
  MemdirError,
  openMemdir,
  readMemoryCapped,
  recall,
  removeMemory,
  resolveMemoryLocation,
  saveMemory,
  scanHeaders,
} from "../src/index.ts";
import { createAnthropicClient } from "../src/model/anthropic.ts";
import { type FakeModelServer, startFakeModelServer } from "../src/testing/index.ts";
import { makeTempDir } from "./helpers/temp.ts";

describe('import { … } from "memdir"', () => {
  const servers: FakeModelServer[] = [];
  after(async () => {
    await Promise.all(servers.map((server) => server.close()));
  });

  it("saves, scans, reads, recalls and removes a memory through the root's functions", async () => {
    const home = makeTempDir();
    const project = path.join(home, "shop");
    fs.mkdirSync(project);
    const location = await resolveMemoryLocation({ cwd: project, home, root: path.join(home, ".mem") });
    assert.equal(
      location.memoryDir,
      path.join(home, ".mem", "projects", project.replace(/[^A-Za-z0-9]/g, "-"), "memory"),
    );
    const { memoryDir } = location;

    const saved = await saveMemory(memoryDir, {
      type: "feedback",
      description: "login integration tests must hit a real database",
      body: "Why: a mocked test passed while the production migration failed.",
    });
    await saveMemory(memoryDir, {
      type: "user",
      description: "prefers terse answers",
      body: "No summaries.",
    });
    const headers = await scanHeaders(memoryDir);
    assert.deepEqual(headers.map((h) => h.file).sort(), [saved.file, "user-prefers-terse-answers.md"].sort());
    const read = await readMemoryCapped(saved.path);
    assert.match(read.content, /mocked test passed/);

    const memdir = openMemdir(memoryDir, { watch: false });
    assert.ok(memdir instanceof Memdir);
    const selector = createLexicalSelector();
    assert.equal(selector.name, "lexical");
    const result = await recall({
      memoryDir,
      query: "why do the login tests use a real database?",
      selector,
      memdir,
    });
    assert.deepEqual(
      result.memories.map((m) => m.file),
      [saved.file],
    );
    await memdir.close();

    await removeMemory(memoryDir, saved.file);
    assert.equal(fs.existsSync(saved.path), false);
    const missing = await removeMemory(memoryDir, saved.file).then(
      () => null,
      (error: unknown) => error,
    );
    assert.ok(missing instanceof MemdirError && isMemdirError(missing) && missing.code === "not-found");
  });

  it("gives model and hybrid selectors that choose through the model on first select", async () => {
    const server = await startFakeModelServer([{ json: { selected_memories: ["b.md"] } }]);
    servers.push(server);
    const client = createAnthropicClient({ apiKey: "k", baseURL: server.anthropicBaseURL, maxRetries: 0 });
    const chooser = createModelSelector({ client });
    assert.equal(chooser.name, "model");
    assert.equal(server.requests.length, 0, "making the selector asks nothing");
    const headers = ["a.md", "b.md"].map((file, i) => ({
      file,
      path: `/mem/${file}`,
      mtimeMs: Date.UTC(2026, 0, 10) - i,
      size: 10,
      type: "user" as const,
      description: `note ${file}`,
    }));
    const hybrid = createHybridSelector({ candidates: createLexicalSelector(), chooser });
    const selection = await hybrid.select({ query: "which note?", headers, k: 5, memoryDir: "/mem" });
    assert.deepEqual(
      selection.picks.map((p) => p.file),
      ["b.md"],
    );
    assert.equal(server.requests.length, 1);
  });
});
