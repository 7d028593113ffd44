import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { runCliInProcess } from "../helpers/cli.ts";
import { makeTempDir, writeTree } from "../helpers/temp.ts";

/** A home with a memory dir holding the worked example's two memories. */
function setup(withMemories = true) {
  const home = makeTempDir();
  const memoryDir = path.join(home, "memory");
  fs.mkdirSync(memoryDir, { recursive: true });
  if (withMemories)
    writeTree(memoryDir, {
      "MEMORY.md":
        "- [Real database](feedback-real-database.md) — 登录模块的集成测试不得 mock 数据库\n" +
        "- [Auth migration](project-auth-migration.md) — 认证重构由合规要求推动\n",
      "feedback-real-database.md":
        "---\ndescription: 登录模块的集成测试不得 mock 数据库\ntype: feedback\n---\n登录模块的集成测试不得 mock 数据库\n",
      "project-auth-migration.md":
        "---\ndescription: 认证重构由合规要求推动\ntype: project\n---\nCompliance.\n",
    });
  return { home, memoryDir };
}

describe("memdir remember", () => {
  it("saves the demo's 记住：… statement offline and prints {file, path, type, description} with --json", async () => {
    const { home, memoryDir } = setup(false);
    const result = await runCliInProcess(
      ["remember", "记住：登录模块的集成测试不得 mock 数据库", "--dir", memoryDir, "--json"],
      { home },
    );
    assert.equal(result.code, 0, result.stderr);
    const saved = JSON.parse(result.stdout);
    assert.deepEqual(Object.keys(saved).sort(), ["description", "file", "path", "type"]);
    assert.equal(saved.type, "feedback");
    assert.equal(saved.description, "登录模块的集成测试不得 mock 数据库");
    assert.equal(saved.path, path.join(memoryDir, saved.file));
    assert.match(
      fs.readFileSync(saved.path, "utf8"),
      /^---\nname: feedback-[\w-]+\ndescription: 登录模块的集成测试不得 mock 数据库\ntype: feedback\nsource: cli\nmodified: \d{4}-\d\d-\d\dT[\d:.]+Z\n---\n/,
    );
    assert.match(
      fs.readFileSync(path.join(memoryDir, "MEMORY.md"), "utf8"),
      new RegExp(`\\(${saved.file}\\)`),
    );
  });

  it("saves a plain statement as it is, and --type overrides the guess", async () => {
    const { home, memoryDir } = setup(false);
    const result = await runCliInProcess(
      [
        "remember",
        "The",
        "on-call",
        "runbook",
        "is",
        "in",
        "Notion",
        "--type",
        "reference",
        "--dir",
        memoryDir,
      ],
      { home },
    );
    assert.equal(result.code, 0, result.stderr);
    assert.match(
      result.stdout,
      /^Saved reference memory reference-.*\.md: The on-call runbook is in Notion\n$/,
    );
  });

  it("refuses the request word alone, and updates the memory a statement repeated with other punctuation made", async () => {
    const { home, memoryDir } = setup(false);
    const remember = (statement: string) =>
      runCliInProcess(["remember", statement, "--dir", memoryDir], { home });
    for (const bare of ["remember:", "记住：", "please remember"]) {
      const refused = await remember(bare);
      assert.equal(refused.code, 1, bare);
      assert.match(refused.stderr, /nothing to remember/);
    }
    assert.deepEqual(
      fs.readdirSync(memoryDir).filter((file) => file.endsWith(".md")),
      [],
      "nothing saved for a request with no statement",
    );
    assert.equal((await remember("use pnpm, not npm")).code, 0);
    const again = await remember("remember: use pnpm not npm");
    assert.match(again.stdout, /^Updated feedback memory feedback-pnpm-not-npm\.md/);
    // Symbols that name things are not punctuation: two languages, two memories.
    assert.equal((await remember("use C++ for the engine")).code, 0);
    assert.match((await remember("use C for the engine")).stdout, /^Saved /);
    assert.equal(
      fs.readdirSync(memoryDir).filter((file) => file.endsWith(".md") && file !== "MEMORY.md").length,
      3,
    );
  });

  it("refuses a statement holding a credential (exit 1, nothing written)", async () => {
    const { home, memoryDir } = setup(false);
    const key = ["AKIA", "Z7QX3MPL5VB2NR4T"].join("");
    const result = await runCliInProcess(
      ["remember", `remember: the AWS key is ${key}`, "--dir", memoryDir],
      {
        home,
      },
    );
    assert.equal(result.code, 1);
    assert.ok(!result.stderr.includes(key));
    assert.deepEqual(fs.readdirSync(memoryDir), []);
  });
});

describe("memdir forget", () => {
  it("removes the best match and its index line with --yes", async () => {
    const { home, memoryDir } = setup();
    const result = await runCliInProcess(
      ["forget", "登录模块集成测试 mock 数据库", "--yes", "--dir", memoryDir],
      {
        home,
      },
    );
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout, "Forgot feedback-real-database.md: 登录模块的集成测试不得 mock 数据库\n");
    assert.equal(fs.existsSync(path.join(memoryDir, "feedback-real-database.md")), false);
    const index = fs.readFileSync(path.join(memoryDir, "MEMORY.md"), "utf8");
    assert.doesNotMatch(index, /feedback-real-database/);
    assert.match(index, /project-auth-migration/);
  });

  it("shows the match and keeps it when the answer is n", async () => {
    const { home, memoryDir } = setup();
    const result = await runCliInProcess(["forget", "忘掉认证重构那条", "--dir", memoryDir], {
      home,
      input: "n\n",
    });
    assert.equal(result.code, 1);
    assert.match(result.stderr, /Forget project-auth-migration\.md \(认证重构由合规要求推动\)\? \[y\/N\]/);
    assert.match(result.stderr, /Kept it\./);
    assert.equal(fs.existsSync(path.join(memoryDir, "project-auth-migration.md")), true);
  });

  it("removes after a y answer and reports {removed, file, path} with --json", async () => {
    const { home, memoryDir } = setup();
    const result = await runCliInProcess(
      ["forget", "auth migration compliance", "--json", "--dir", memoryDir],
      {
        home,
        input: "y\n",
      },
    );
    assert.equal(result.code, 0, result.stderr);
    assert.deepEqual(JSON.parse(result.stdout), {
      removed: true,
      file: "project-auth-migration.md",
      path: path.join(memoryDir, "project-auth-migration.md"),
    });
    assert.equal(fs.existsSync(path.join(memoryDir, "project-auth-migration.md")), false);
  });

  it("removes nothing when the words name several memories alike, and says which; more words pick one", async () => {
    const { home, memoryDir } = setup(false);
    writeTree(memoryDir, {
      "MEMORY.md":
        "- [Prefers pnpm](user-prefers-pnpm.md) — use pnpm, not npm\n" +
        "- [No DB mocks](feedback-no-db-mocks.md) — never mock the database in integration tests\n",
      "user-prefers-pnpm.md": "---\ndescription: use pnpm, not npm\ntype: user\n---\nUse pnpm, not npm.\n",
      "feedback-no-db-mocks.md":
        "---\ndescription: never mock the database in integration tests\ntype: feedback\n---\nUse docker postgres instead.\n",
    });
    const vague = await runCliInProcess(["forget", "use", "--yes", "--dir", memoryDir], { home });
    assert.equal(vague.code, 1);
    assert.match(
      vague.stderr,
      /2 memories match "use" equally \((?=.*user-prefers-pnpm\.md)(?=.*feedback-no-db-mocks\.md).*\); nothing forgotten/,
    );
    assert.deepEqual(fs.readdirSync(memoryDir).sort(), [
      "MEMORY.md",
      "feedback-no-db-mocks.md",
      "user-prefers-pnpm.md",
    ]);
    const named = await runCliInProcess(["forget", "use", "pnpm", "--yes", "--dir", memoryDir], { home });
    assert.equal(named.code, 0, named.stderr);
    assert.deepEqual(
      fs
        .readdirSync(memoryDir)
        .filter((name) => !name.startsWith("."))
        .sort(),
      ["MEMORY.md", "feedback-no-db-mocks.md"],
    );
  });

  it("exits 1 saying so when nothing matches", async () => {
    const { home, memoryDir } = setup();
    const result = await runCliInProcess(["forget", "kubernetes helm charts", "--yes", "--dir", memoryDir], {
      home,
    });
    assert.equal(result.code, 1);
    assert.match(result.stderr, /no memory matches "kubernetes helm charts"/);
    assert.equal(fs.readdirSync(memoryDir).length, 3);
  });
});
