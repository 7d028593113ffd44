// Review mode keeps what extraction writes (docs/design.md#memory-modes): the fork works on a
// scratch copy, but the model knows the real memory dir (the main agent's memory rules name it),
// so what it addresses there — or relative to it, as the refusals say — must land in the proposal.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, describe, it } from "node:test";
import { runExtraction } from "../../src/extract/run-extraction.ts";
import { listProposals } from "../../src/memdir/write/proposal-store.ts";
import { createAnthropicClient } from "../../src/model/anthropic.ts";
import { type FakeStep, startFakeModelServer } from "../../src/testing/index.ts";
import type { Message } from "../../src/types.ts";
import { memory } from "../helpers/memory.ts";
import { makeTempDir, writeTree } from "../helpers/temp.ts";

const conversation: Message[] = [
  { id: "1", role: "user", content: "Never mock the database in the login tests." },
  { id: "2", role: "assistant", content: [{ type: "text", text: "Understood." }] },
];

const EXISTING = "- [Style](feedback-style.md) — two-space indent\n";

async function fakeClient(script: FakeStep[]) {
  const server = await startFakeModelServer(script);
  after(() => server.close());
  return {
    server,
    client: createAnthropicClient({ apiKey: "test-key", baseURL: server.anthropicBaseURL, maxRetries: 0 }),
  };
}

function memoryDirWithOneMemory(): string {
  const memoryDir = path.join(makeTempDir(), "memory");
  writeTree(memoryDir, {
    "MEMORY.md": EXISTING,
    "feedback-style.md": memory("two-space indent", "Indent with two spaces."),
  });
  return memoryDir;
}

/** Every file under `dir` (names and text), dot-folders included. */
function snapshot(dir: string): Record<string, string> {
  const files: Record<string, string> = {};
  for (const entry of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const full = path.join(entry.parentPath, entry.name);
    files[path.relative(dir, full)] = fs.readFileSync(full, "utf8");
  }
  return files;
}

const TESTING = memory("login tests hit the real database", "Never mock the database in the login tests.");
const INDEX_LINE = "- [Real database](feedback-x.md) — login tests never mock the database\n";

describe("extraction in review mode", () => {
  for (const [name, spell] of [
    [
      "an absolute path into the real memory dir",
      (memoryDir: string, file: string) => path.join(memoryDir, file),
    ],
    ["a path relative to the memory dir", (_memoryDir: string, file: string) => file],
  ] as const) {
    it(`keeps a write addressed by ${name}: a proposal in the inbox holds it, the memory dir is unchanged`, async () => {
      const memoryDir = memoryDirWithOneMemory();
      const { server, client } = await fakeClient([
        {
          toolCalls: [
            { name: "Write", input: { file_path: spell(memoryDir, "feedback-x.md"), content: TESTING } },
            {
              name: "Edit",
              input: {
                file_path: spell(memoryDir, "MEMORY.md"),
                old_string: EXISTING,
                new_string: EXISTING + INDEX_LINE,
              },
            },
          ],
        },
        "Saved one memory.",
      ]);
      const before = snapshot(memoryDir);
      const result = await runExtraction({
        messages: conversation,
        newMessageCount: 2,
        memoryDir,
        client,
        memoryMode: "review",
      });

      assert.equal(result.ok, true, result.error?.message);
      assert.deepEqual(result.refused, [], "no write was refused");
      assert.deepEqual(result.saved, ["feedback-x.md"]);
      // The model was told of the memory dir it knows, not of the scratch copy.
      assert.match(
        JSON.stringify(server.requests[0].body?.messages),
        new RegExp(`Memory directory: \`${memoryDir}\``),
      );
      const pending = await listProposals(memoryDir);
      assert.equal(pending.length, 1, "one proposal waits in the inbox");
      assert.equal(result.proposal?.id, pending[0].id);
      const changes = Object.fromEntries(pending[0].changes.map((change) => [change.file, change]));
      assert.deepEqual(Object.keys(changes).sort(), ["MEMORY.md", "feedback-x.md"]);
      assert.equal(changes["feedback-x.md"].action, "add");
      assert.match(changes["feedback-x.md"].after ?? "", /Never mock the database in the login tests\./);
      assert.equal(changes["MEMORY.md"].after, EXISTING + INDEX_LINE);
      const after = snapshot(memoryDir);
      for (const file of Object.keys(after)) if (file.startsWith(".proposals")) delete after[file];
      assert.deepEqual(after, before, "the memory dir itself is unchanged");
    });
  }

  it("in auto mode a relative path names a file in the memory dir, as the refusal message says", async () => {
    const memoryDir = memoryDirWithOneMemory();
    const { client } = await fakeClient([
      { toolCall: { name: "Write", input: { file_path: "feedback-x.md", content: TESTING } } },
      "Saved one memory.",
    ]);
    const result = await runExtraction({ messages: conversation, newMessageCount: 2, memoryDir, client });
    assert.deepEqual(result.refused, []);
    assert.deepEqual(result.saved, ["feedback-x.md"]);
    assert.match(fs.readFileSync(path.join(memoryDir, "feedback-x.md"), "utf8"), /Never mock the database/);
  });
});
