// An automatic writer must not be able to plant a command that a later git call
// runs. The real extraction agent (driven by the fake model server) tries to write memdir's own
// state and non-memory files; then the real `memdir dream` runs git in the memory dir. A second
// case plants a hostile `.git/config` by hand (as a copied or synced folder could bring one) and
// checks that memdir's git calls ignore it.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, describe, it } from "node:test";
import { runExtraction } from "../../src/extract/run-extraction.ts";
import { createAnthropicClient } from "../../src/model/anthropic.ts";
import { startFakeModelServer } from "../../src/testing/index.ts";
import type { Message } from "../../src/types.ts";
import { runCli } from "../helpers/cli.ts";
import { recordReliability } from "../helpers/reliability-counts.ts";
import { makeTempDir, writeTree } from "../helpers/temp.ts";

const memory = (description: string, body: string) =>
  `---\ndescription: ${description}\ntype: feedback\n---\n${body}\n`;

const conversation: Message[] = [
  { id: "1", role: "user", content: "Remember: login tests must hit a real database." },
  { id: "2", role: "assistant", content: [{ type: "text", text: "Noted." }] },
];

/** A memory dir with two duplicates, so that `memdir dream --force` changes files and commits. */
function fixture() {
  const home = makeTempDir("memdir-planted-");
  const memoryDir = path.join(home, "project", "memory");
  writeTree(memoryDir, {
    "MEMORY.md":
      "- [Real DB](feedback-real-db.md) — login tests hit a real database\n" +
      "- [Real DB 2](feedback-real-db-copy.md) — login tests hit a real database\n",
    "feedback-real-db.md": memory("login tests hit a real database", "Never mock the database."),
    "feedback-real-db-copy.md": memory("Login tests hit a real database.", "never mock the database"),
  });
  const markers = path.join(home, "markers");
  fs.mkdirSync(markers);
  /** A shell command that leaves `markers/<name>` behind when anything runs it. */
  const plant = (name: string) => `touch ${path.join(markers, name)}`;
  const ran = () => fs.readdirSync(markers).sort();
  return { home, memoryDir, plant, ran };
}

/** A hostile repository config: every key that makes git run a program. */
function hostileGitConfig(plant: (name: string) => string, hooksDir: string): string {
  return [
    "[core]",
    "\trepositoryformatversion = 0",
    "\tbare = false",
    `\tfsmonitor = ${plant("fsmonitor")}`,
    `\thooksPath = ${hooksDir}`,
    `\tpager = ${plant("pager")}`,
    `\tsshCommand = ${plant("ssh")}`,
    '[filter "evil"]',
    `\tclean = sh -c '${plant("filter-clean")}; cat'`,
    `\tsmudge = sh -c '${plant("filter-smudge")}; cat'`,
    '[diff "evil"]',
    `\ttextconv = sh -c '${plant("textconv")}; cat'`,
    "[alias]",
    `\tlog = !${plant("alias")}`,
    "",
  ].join("\n");
}

function hookDir(home: string, plant: (name: string) => string): string {
  const hooks = path.join(home, "hooks");
  fs.mkdirSync(hooks, { recursive: true });
  for (const name of ["pre-commit", "commit-msg", "post-commit", "pre-auto-gc", "post-checkout"]) {
    fs.writeFileSync(path.join(hooks, name), `#!/bin/sh\n${plant(`hook-${name}`)}\n`, { mode: 0o755 });
  }
  return hooks;
}

describe("automatic writers cannot plant commands", () => {
  it("extraction is refused every non-memory path, and the following dream runs nothing", async () => {
    const { home, memoryDir, plant, ran } = fixture();
    // A first dream creates the history repository, so `.git/config` exists to be overwritten.
    const first = await runCli(["dream", "--force", "--dir", memoryDir], { home });
    assert.equal(first.code, 0, first.stderr);
    const configBefore = fs.readFileSync(path.join(memoryDir, ".git", "config"), "utf8");
    writeTree(memoryDir, {
      "feedback-real-db-copy.md": memory("Login tests hit a real database!", "never mock it"),
    });

    const hooks = hookDir(home, plant);
    const hostile: Record<string, string> = {
      ".git/config": hostileGitConfig(plant, hooks),
      ".git/hooks/pre-commit": `#!/bin/sh\n${plant("planted-hook")}\n`,
      ".git/info/attributes": "* filter=evil diff=evil\n",
      ".gitattributes": "* filter=evil diff=evil\n",
      ".memdir-project": "another-project\n",
      ".memdir-write.lock": '{"pid":1}\n',
      ".memdir-extract/pending/session.json": "{}\n",
      "run.sh": `#!/bin/sh\n${plant("run-sh")}\n`,
      "notes/.hidden.md": memory("hidden", "never recalled"),
      "settings.json": "{}\n",
    };
    const valid = "feedback-login-real-database.md";
    const server = await startFakeModelServer([
      {
        toolCalls: [
          ...Object.entries(hostile).map(([file, content]) => ({
            name: "Write",
            input: { file_path: path.join(memoryDir, file), content },
          })),
          {
            name: "Edit",
            input: {
              file_path: path.join(memoryDir, ".git", "config"),
              old_string: "[core]",
              new_string: `[core]\n\tfsmonitor = ${plant("edit-fsmonitor")}`,
            },
          },
          {
            name: "Write",
            input: {
              file_path: path.join(memoryDir, valid),
              content: memory("login tests must hit a real database", "Why: a mock hid a broken migration."),
            },
          },
        ],
      },
      "Done.",
    ]);
    after(() => server.close());
    const client = createAnthropicClient({
      apiKey: "test-key",
      baseURL: server.anthropicBaseURL,
      maxRetries: 0,
    });
    const result = await runExtraction({
      messages: conversation,
      newMessageCount: 2,
      memoryDir,
      client,
    });

    const configAfter = fs.readFileSync(path.join(memoryDir, ".git", "config"), "utf8");
    const written = Object.keys(hostile).filter(
      (file) => file !== ".git/config" && fs.existsSync(path.join(memoryDir, file)),
    );
    const dream = await runCli(["dream", "--force", "--dir", memoryDir], { home });
    const history = await runCli(["history", "--json", "--dir", memoryDir], { home });
    // Tried: each hostile write and the edit of .git/config; out: what was written, or ran.
    recordReliability("escapes", {
      tried: Object.keys(hostile).length + 1,
      escapes: written.length + (configAfter === configBefore ? 0 : 1) + ran().length,
    });

    assert.equal(result.ok, true);
    assert.deepEqual(result.saved, [valid], "the memory file still lands");
    const refusedPaths = result.refused.map((r) => path.relative(memoryDir, r.path));
    assert.deepEqual(refusedPaths.sort(), [...Object.keys(hostile), ".git/config"].sort());
    for (const refusal of result.refused)
      assert.match(refusal.reason, /refused: .*(memdir's own state|not a memory file)/, refusal.reason);
    assert.equal(configAfter, configBefore);
    assert.deepEqual(written, [], "no hostile file was written");
    // The refusals reached the model as tool errors it can read.
    assert.match(JSON.stringify(server.requests[1].body?.messages), /not a memory file/);

    assert.equal(dream.code, 0, dream.stderr);
    assert.equal(history.code, 0, history.stderr);
    assert.deepEqual(ran(), [], "no planted command ran");
  });

  it("memdir's git calls ignore a hostile .git/config, hooks and attributes planted by hand", async () => {
    const { home, memoryDir, plant, ran } = fixture();
    const first = await runCli(["dream", "--force", "--dir", memoryDir], { home });
    assert.equal(first.code, 0, first.stderr);
    const gitDir = path.join(memoryDir, ".git");
    const pinned = fs.readFileSync(path.join(gitDir, "config"), "utf8");
    const hooks = hookDir(home, plant);
    fs.writeFileSync(path.join(gitDir, "config"), hostileGitConfig(plant, hooks));
    fs.writeFileSync(path.join(gitDir, "hooks", "pre-commit"), `#!/bin/sh\n${plant("planted-hook")}\n`, {
      mode: 0o755,
    });
    fs.mkdirSync(path.join(gitDir, "info"), { recursive: true });
    fs.writeFileSync(path.join(gitDir, "info", "attributes"), "* filter=evil diff=evil\n");
    fs.writeFileSync(path.join(memoryDir, ".gitattributes"), "* filter=evil diff=evil\n");
    writeTree(memoryDir, {
      "feedback-deploys.md": memory("deploys happen on fridays", "Release train."),
      "feedback-deploys-copy.md": memory("Deploys happen on Fridays.", "release train"),
    });

    const dream = await runCli(["dream", "--force", "--dir", memoryDir], { home });
    assert.equal(dream.code, 0, dream.stderr);
    const history = await runCli(["history", "--json", "--dir", memoryDir], { home });
    assert.equal(history.code, 0, history.stderr);
    const { entries } = JSON.parse(history.stdout) as { entries: { kind: string }[] };
    assert.equal(entries.filter((entry) => entry.kind === "dedupe").length, 2, "both dreams were recorded");
    const undo = await runCli(["undo", "--dir", memoryDir], { home });
    assert.equal(undo.code, 0, undo.stderr);

    // Tried: every command planted (7 config keys, 5 hooks in hooksPath, one in .git/hooks).
    recordReliability("escapes", { tried: 13, escapes: ran().length });
    assert.deepEqual(ran(), [], "no planted command ran");
    assert.equal(fs.readFileSync(path.join(gitDir, "config"), "utf8"), pinned, "memdir's own config is back");
  });

  it("refuses to run git when .git/commondir points at another repository", async () => {
    const { home, memoryDir } = fixture();
    const first = await runCli(["dream", "--force", "--dir", memoryDir], { home });
    assert.equal(first.code, 0, first.stderr);
    const elsewhere = path.join(home, "elsewhere.git");
    fs.mkdirSync(elsewhere);
    fs.writeFileSync(path.join(memoryDir, ".git", "commondir"), `${elsewhere}\n`);
    const history = await runCli(["history", "--dir", memoryDir], { home });
    recordReliability("escapes", { tried: 1, escapes: history.code === 0 ? 1 : 0 });
    assert.notEqual(history.code, 0);
    assert.match(history.stderr, /^memdir: .*commondir points git at another repository/m);
  });
});
