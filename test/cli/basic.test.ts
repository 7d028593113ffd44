import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { runCliInProcess } from "../helpers/cli.ts";
import { makeTempDir, writeTree } from "../helpers/temp.ts";

// The child runs from the repository so `--import tsx` resolves (runCli's default cwd is HOME);
// the project is always given by --cwd.
const repo = path.resolve(import.meta.dirname, "../..");

/** A home, a project folder and `--root`, so nothing touches the real ~/.claude. */
function setup() {
  const home = makeTempDir();
  const project = path.join(home, "shop");
  fs.mkdirSync(project);
  const root = path.join(home, ".memroot");
  const memoryDir = path.join(root, "projects", project.replace(/[^A-Za-z0-9]/g, "-"), "memory");
  const common = ["--root", root, "--cwd", project];
  const run = (args: string[], input?: string) =>
    runCliInProcess([...args, ...common], { home, input, cwd: repo });
  return { home, project, root, memoryDir, run };
}

describe("memdir path / add / list / show / rm", () => {
  it("walks the whole cycle a user goes through", async () => {
    const { memoryDir, run } = setup();

    const where = await run(["path", "--json"]);
    assert.equal(where.code, 0, where.stderr);
    assert.deepEqual(Object.keys(JSON.parse(where.stdout)).sort(), ["index", "memoryDir", "projectRoot"]);
    assert.equal(JSON.parse(where.stdout).memoryDir, memoryDir);
    assert.equal((await run(["path"])).stdout, `${memoryDir}\n`);

    const added = await run([
      "add",
      "--type",
      "feedback",
      "--description",
      "登录模块的集成测试不得 mock 数据库",
      "--file",
      "feedback-real-database.md",
      "--json",
      "集成测试必须连接真实数据库。",
    ]);
    assert.equal(added.code, 0, added.stderr);
    assert.deepEqual(JSON.parse(added.stdout), {
      file: "feedback-real-database.md",
      path: path.join(memoryDir, "feedback-real-database.md"),
    });

    const fromStdin = await run(
      ["add", "--type", "project", "--description", "认证重构由合规要求推动"],
      "合规要求。\n",
    );
    assert.equal(fromStdin.code, 0, fromStdin.stderr);
    const stdinPath = fromStdin.stdout.trim();
    assert.match(fs.readFileSync(stdinPath, "utf8"), /合规要求。/);

    const listed = await run(["list", "--json"]);
    const entries = JSON.parse(listed.stdout) as Record<string, unknown>[];
    assert.equal(entries.length, 2);
    for (const entry of entries)
      assert.deepEqual(Object.keys(entry).sort(), [
        "description",
        "file",
        "mtime",
        "path",
        "session",
        "source",
        "type",
      ]);
    assert.ok(entries.some((e) => e.file === "feedback-real-database.md" && e.type === "feedback"));
    const human = await run(["list"]);
    assert.match(human.stdout, /^- \[feedback\] feedback-real-database\.md \(just now\): 登录模块/m);

    // The name as users type it, without `.md`, is the same file; a part of a name is suggested.
    const bare = await run(["show", "feedback-real-database"]);
    assert.equal(bare.code, 0, bare.stderr);
    assert.equal(bare.stdout, (await run(["show", "feedback-real-database.md"])).stdout);
    const part = await run(["show", "real-database"]);
    assert.equal(part.code, 1);
    assert.match(part.stderr, /no memory real-database .*\(did you mean feedback-real-database\.md\?\)/);

    const shown = await run(["show", "feedback-real-database.md"]);
    assert.match(
      shown.stdout,
      /^---\nname: feedback-real-database\ndescription: 登录模块的集成测试不得 mock 数据库\ntype: feedback\nsource: cli\nmodified: \d{4}-\d\d-\d\dT[\d:.]+Z\n---\n集成测试/,
    );
    const index = fs.readFileSync(path.join(memoryDir, "MEMORY.md"), "utf8");
    assert.match(index, /^- \[.+\]\(feedback-real-database\.md\) — 登录模块的集成测试不得 mock 数据库$/m);

    const removed = await run(["rm", "feedback-real-database.md", "--json"]);
    assert.equal(removed.code, 0, removed.stderr);
    assert.ok(!fs.existsSync(path.join(memoryDir, "feedback-real-database.md")));
    assert.ok(
      !fs.readFileSync(path.join(memoryDir, "MEMORY.md"), "utf8").includes("feedback-real-database.md"),
    );
  });

  it("uses --dir directly and lists a missing directory as empty", async () => {
    const { home } = setup();
    const dir = path.join(home, "elsewhere", "memory");
    const listed = await runCliInProcess(["list", "--dir", dir, "--json"], { home, cwd: repo });
    assert.equal(listed.code, 0, listed.stderr);
    assert.deepEqual(JSON.parse(listed.stdout), []);
    const where = await runCliInProcess(["path", "--dir", dir, "--json"], { home, cwd: repo });
    assert.equal(JSON.parse(where.stdout).projectRoot, null);
  });

  it("refuses a secret with exit 1, a clear message, and nothing written", async () => {
    const { memoryDir, run } = setup();
    const token = `sk-ant-api03-${"Zx9Qw2Er7Ty4Ui1Op6As3Df8Gh5Jk0Lz".repeat(3)}AA`;
    const result = await run(["add", "--type", "reference", "--description", "api access", `key ${token}`]);
    assert.equal(result.code, 1);
    assert.match(result.stderr, /secret|key|token/i);
    assert.ok(!result.stderr.includes(token), "the secret itself is never echoed");
    // In the description: the line the file would hold it on (`---`, name, description).
    for (const [file, named] of [
      [[], "the memory file"],
      [["--file", "api.md"], "api\\.md"],
    ] as const) {
      const refused = await run([
        "add",
        "--type",
        "reference",
        "--description",
        `api access ${token}`,
        ...file,
        "key lives in the vault",
      ]);
      assert.equal(refused.code, 1);
      assert.match(
        refused.stderr,
        new RegExp(`^memdir: secret: description: looks like an? [^(]+ \\(line 3 of ${named}\\);`),
      );
      assert.ok(!refused.stderr.includes(token), "the secret itself is never echoed");
    }
    const files = fs.existsSync(memoryDir) ? fs.readdirSync(memoryDir).filter((f) => f.endsWith(".md")) : [];
    assert.deepEqual(files, []);
  });

  it("refuses an empty or blank memory text with exit 2, a clear message, and nothing written", async () => {
    const { memoryDir, run } = setup();
    for (const [args, input] of [
      [["add", "--type", "user", "--description", "empty argument", ""], undefined],
      [["add", "--type", "user", "--description", "blank argument", " \n\t "], undefined],
      [["add", "--type", "user", "--description", "empty stdin"], ""],
      [["add", "--type", "user", "--description", "blank stdin"], "\n  \n"],
    ] as const) {
      const result = await run([...args], input);
      assert.equal(result.code, 2, `${args.at(-1)}: ${result.stderr}`);
      assert.match(result.stderr, /add: the memory text is empty/);
      assert.equal(result.stdout, "");
    }
    const files = fs.existsSync(memoryDir) ? fs.readdirSync(memoryDir) : [];
    assert.deepEqual(files, [], "no memory and no index line");
  });

  it("names a memory from its description's meaningful words, negation included", async () => {
    const { memoryDir, run } = setup();
    const added = await run([
      "add",
      "--type",
      "project",
      "--description",
      "don't remember the password",
      "--json",
      "x",
    ]);
    assert.equal(added.code, 0, added.stderr);
    assert.deepEqual(JSON.parse(added.stdout), {
      file: "project-dont-remember-password.md",
      path: path.join(memoryDir, "project-dont-remember-password.md"),
    });
  });

  it("refuses a --cwd that does not exist with exit 2, and makes no memory folder for it", async () => {
    const { home, root, project } = setup();
    const typo = `${project}-typo`;
    const result = await runCliInProcess(["remember", "use yarn", "--root", root, "--cwd", typo], {
      home,
      cwd: repo,
    });
    assert.equal(result.code, 2, result.stderr);
    assert.match(result.stderr, /--cwd .*-typo: no such directory/);
    assert.equal(fs.existsSync(root), false, "nothing made under the root for the mistyped project");
  });

  it("refuses a --dir that is a file with exit 2, for a read as for a write", async () => {
    const { home } = setup();
    const file = path.join(home, "notes.txt");
    fs.writeFileSync(file, "not a memory dir\n");
    for (const args of [["doctor"], ["list"], ["add", "--type", "user", "--description", "d", "body"]]) {
      const result = await runCliInProcess([...args, "--dir", file], { home, cwd: repo });
      assert.equal(result.code, 2, `${args[0]}: ${result.stderr}`);
      assert.match(result.stderr, /--dir .*notes\.txt: not a directory; nothing was read or written/);
    }
    assert.equal(fs.readFileSync(file, "utf8"), "not a memory dir\n");
  });

  it("exits 2 on usage errors and 1 on a missing memory", async () => {
    const { run } = setup();
    assert.equal((await run(["add", "--description", "no type", "body"])).code, 2);
    assert.equal((await run(["add", "--type", "opinion", "--description", "d", "body"])).code, 2);
    const missing = await run(["show", "nope.md"]);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /nope\.md/);
    const outside = await run(["show", "../../../../etc/passwd"]);
    assert.equal(outside.code, 1);
  });
});

describe("memdir add twice with one description", () => {
  it("saves the second beside the first and says that the first has the same description", async () => {
    const { memoryDir, run } = setup();
    const first = await run(["add", "--type", "user", "--description", "User prefers pnpm", "Use pnpm."]);
    assert.equal(first.code, 0, first.stderr);
    assert.equal(first.stderr, "");
    const second = await run([
      "add",
      "--type",
      "user",
      "--description",
      "user prefers  pnpm",
      "pnpm, not npm.",
    ]);
    assert.equal(second.code, 0, second.stderr);
    assert.match(
      second.stderr,
      /^memdir: note: user-prefers-pnpm\.md has the same description; this one was saved beside it as user-prefers-pnpm-2\.md/,
    );
    assert.ok(fs.existsSync(path.join(memoryDir, "user-prefers-pnpm-2.md")));
    // Another description that numbers its name says nothing.
    const other = await run(["add", "--type", "user", "--description", "User prefers pnpm!", "x"]);
    assert.equal(other.code, 0, other.stderr);
    assert.equal(other.stderr, "");
  });
});

describe("the first look in a new project", () => {
  it("list says how memory gets there, doctor that there is no memory directory yet, and neither makes one", async () => {
    const { memoryDir, run } = setup();
    const list = await run(["list"]);
    assert.equal(list.code, 0, list.stderr);
    assert.match(list.stdout, /^no memories in .*; save one with memdir remember "…" \(or memdir add\)/);
    const doctor = await run(["doctor"]);
    assert.match(
      doctor.stdout,
      new RegExp(`no memory directory yet at ${memoryDir.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`),
    );
    assert.doesNotMatch(doctor.stdout, /no issues in/);
    assert.equal(fs.existsSync(memoryDir), false);
  });
});

describe("memdir doctor", () => {
  it("reports problems as {issues}, exits 1, and --fix repairs pointers", async () => {
    const { memoryDir, run } = setup();
    writeTree(memoryDir, {
      "MEMORY.md": "- [Gone](gone.md) — deleted long ago\n- [Kept](kept.md) — kept\n",
      "kept.md": "---\ndescription: kept\ntype: user\n---\nbody\n",
      "orphan.md": "---\ndescription: nobody points here\ntype: project\n---\nbody\n",
      "untyped.md": "---\ndescription: no type here\n---\nbody\n",
      "leaky.md": `---\ndescription: leaky\ntype: reference\n---\naws AKIAZ7Q3R5T2W8Y4U6P1\n`,
    });
    const before = await run(["doctor", "--json"]);
    assert.equal(before.code, 1);
    const { issues } = JSON.parse(before.stdout) as {
      issues: { code: string; file: string; message: string }[];
    };
    const found = issues.map((i) => `${i.code} ${i.file}`).sort();
    for (const expected of [
      "dead-pointer gone.md",
      "missing-pointer orphan.md",
      "missing-pointer untyped.md",
      "missing-type untyped.md",
      "secret leaky.md",
    ]) {
      assert.ok(found.includes(expected), `expected ${expected} in ${found.join(", ")}`);
    }
    assert.ok(!before.stdout.includes("AKIAZ7Q3R5T2W8Y4U6P1"));

    const fixed = await run(["doctor", "--fix"]);
    assert.equal(fixed.code, 1, "the type and the secret need a human");
    assert.match(fixed.stdout, /fixed: removed the line for missing gone\.md/);
    assert.match(fixed.stdout, /^--fix repaired 4 things; what is listed above needs a hand edit/m);
    const index = fs.readFileSync(path.join(memoryDir, "MEMORY.md"), "utf8");
    assert.ok(!index.includes("gone.md"));
    assert.match(index, /\(orphan\.md\) — nobody points here/);
    assert.match(index, /\(untyped\.md\) — no type here/);
    assert.ok(!index.includes("AKIA"), "a secret is never copied into the index");

    assert.equal((await run(["rm", "leaky.md"])).code, 0);
    writeTree(memoryDir, { "untyped.md": "---\ndescription: no type here\ntype: user\n---\nbody\n" });
    const clean = await run(["doctor", "--json"]);
    assert.equal(clean.code, 0, clean.stdout);
    assert.deepEqual(JSON.parse(clean.stdout), { issues: [] });
  });

  it("names the hook modes in one short line, and why with --verbose", async () => {
    const { run } = setup();
    const brief = await run(["doctor"]);
    const modeLines = brief.stdout.split("\n").filter((line) => /hook/.test(line));
    assert.deepEqual(modeLines, [
      "hooks: recall only for Claude Code, whole cycle for other agents (why: memdir doctor --verbose)",
    ]);
    const verbose = await run(["doctor", "--verbose"]);
    assert.equal(verbose.code, brief.code, verbose.stderr);
    assert.match(verbose.stdout, /^as a Claude Code hook: recall only: Claude Code's own auto memory is on/m);
    assert.match(verbose.stdout, /^as a hook of other agents: whole cycle: the host has no auto memory/m);
    const { home, project, root } = setup();
    const off = await runCliInProcess(["doctor", "--root", root, "--cwd", project], {
      home,
      cwd: repo,
      env: { MEMDIR_DISABLE: "1" },
    });
    assert.match(
      off.stdout,
      /^hooks: off for Claude Code and other agents \(why: memdir doctor --verbose\)$/m,
    );
  });

  it("flags an index over its limits", async () => {
    const { memoryDir, run } = setup();
    const lines = Array.from({ length: 201 }, (_, i) => `- [M${i}](m${i}.md) — memory ${i}`);
    writeTree(memoryDir, { "MEMORY.md": `${lines.join("\n")}\n` });
    for (let i = 0; i < 201; i++)
      writeTree(memoryDir, { [`m${i}.md`]: `---\ndescription: memory ${i}\ntype: user\n---\n` });
    const result = await run(["doctor", "--json"]);
    const { issues } = JSON.parse(result.stdout) as { issues: { code: string; message: string }[] };
    assert.deepEqual(
      issues.map((i) => i.code),
      ["index-too-long"],
    );
    assert.match(issues[0].message, /only the first 200 are loaded — .*merge or remove old memories/);
  });

  it("says where frontmatter stops parsing, and only that, in doctor and in show", async () => {
    const { memoryDir, run } = setup();
    writeTree(memoryDir, {
      "MEMORY.md": "- [Bad](bad.md) — bad\n",
      "bad.md": "---\ndescription: broken: colon: here\ntype: user\n---\nbody\n",
    });
    const doctor = await run(["doctor", "--json"]);
    const { issues } = JSON.parse(doctor.stdout) as { issues: { code: string; message: string }[] };
    assert.deepEqual(
      issues.map((i) => i.code),
      ["yaml"],
      "no missing type or description for a file whose fields cannot be read",
    );
    assert.match(
      issues[0].message,
      /^bad\.md: frontmatter is not valid YAML \(line 2\): .*; put a value that holds ": " in quotes$/,
    );
    const shown = await run(["show", "bad.md"]);
    assert.equal(shown.code, 0, shown.stderr);
    assert.match(shown.stdout, /broken: colon: here/);
    assert.match(shown.stderr, /^memdir: show: bad\.md: frontmatter is not valid YAML \(line 2\)/m);
  });
});
