// What the single writer refuses in the text it is handed, whoever hands it
// (docs/design.md#the-single-writer): a credential in any frontmatter key, a control character a
// terminal acts on, a file over the size a memory may have.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { isMemdirError } from "../../../src/errors.ts";
import { parseFrontmatter } from "../../../src/memdir/format/frontmatter.ts";
import { MEMORY_FILE_MAX_BYTES } from "../../../src/memdir/fs/read.ts";
import { saveMemory, writeMemoryText } from "../../../src/memdir/write/write.ts";
import { runCliInProcess } from "../../helpers/cli.ts";
import { makeTempDir } from "../../helpers/temp.ts";

const TOKEN = "ghp_R8x2kQ9vL3mN7pT1wZ5yB4cD6fH0jK2sA8eG";

function memoryFiles(dir: string): string[] {
  return fs.existsSync(dir)
    ? fs.readdirSync(dir).filter((file) => file.endsWith(".md") && file !== "MEMORY.md")
    : [];
}

async function refusal(write: Promise<unknown>, code: string): Promise<string> {
  try {
    await write;
  } catch (error) {
    assert.ok(isMemdirError(error, code as never), String(error));
    return (error as Error).message;
  }
  assert.fail(`expected a ${code} refusal`);
}

describe("the writer's secret check covers every frontmatter key", () => {
  it("refuses a credential in another key, a nested value or a key name, naming the key and its line in the file, and writes nothing", async () => {
    const dir = path.join(makeTempDir(), "memory");
    const base = { file: "y.md", type: "reference", description: "deploy token", body: "Where it lives." };
    // The file as written: `---`, name, description, type, then the caller's keys.
    for (const [extra, where] of [
      [
        { api_token: TOKEN },
        'frontmatter key "api_token": looks like a GitHub personal access token (line 5 of y.md)',
      ],
      [
        { owner: "ops", metadata: { owner: "ops", token: TOKEN } },
        'frontmatter key "metadata.token": looks like a GitHub personal access token (line 7 of y.md)',
      ],
      [
        { tags: ["deploy", TOKEN] },
        'frontmatter key "tags[1]": looks like a GitHub personal access token (line 7 of y.md)',
      ],
      [
        { note: `one\ntwo\n${TOKEN}` },
        'frontmatter key "note": looks like a GitHub personal access token (line 8 of y.md)',
      ],
      [
        { [TOKEN]: "x" },
        "a frontmatter key name: looks like a GitHub personal access token (line 5 of y.md)",
      ],
      [
        { metadata: { [TOKEN]: "x" } },
        'a frontmatter key name in "metadata": looks like a GitHub personal access token (line 6 of y.md)',
      ],
      [
        { db_password: "hunter2hunter2" },
        'frontmatter key "db_password": looks like a password or secret assignment (line 5 of y.md)',
      ],
    ] as const) {
      const message = await refusal(saveMemory(dir, { ...base, extra }), "secret");
      assert.ok(message.startsWith(`memdir: secret: ${where};`), message);
      assert.ok(!message.includes(TOKEN), "the value is never in the message");
    }
    // A new memory whose name the writer has yet to derive, and the description itself.
    const { file: _file, ...unnamed } = base;
    assert.match(
      await refusal(saveMemory(dir, { ...unnamed, extra: { api_token: TOKEN } }), "secret"),
      /^memdir: secret: frontmatter key "api_token": .* \(line 5 of the memory file\);/,
    );
    assert.match(
      await refusal(saveMemory(dir, { ...base, description: `the token ${TOKEN}` }), "secret"),
      /^memdir: secret: description: .* \(line 3 of y\.md\);/,
    );
    // A title and a file name are one line, not lines of the file: no line is named.
    assert.match(
      await refusal(saveMemory(dir, { ...base, title: `the token ${TOKEN}` }), "secret"),
      /^memdir: secret: title: looks like a GitHub personal access token; /,
    );
    // writeMemoryText scans the whole text it is given, frontmatter included.
    const text = `---\ndescription: d\ntype: reference\napi_token: ${TOKEN}\n---\nBody.\n`;
    await refusal(writeMemoryText(dir, "y.md", text), "secret");
    assert.deepEqual(memoryFiles(dir), []);
  });

  it("an import's extra key never reaches recall", async () => {
    const home = makeTempDir();
    const dir = path.join(home, "memory");
    const from = path.join(home, "s.jsonl");
    fs.writeFileSync(
      from,
      `${JSON.stringify({ file: "y.md", type: "reference", description: "secret in extra", body: "Where the deploy token lives.", api_token: TOKEN })}\n`,
    );
    await runCliInProcess(["import", "jsonl", "--from", from, "--dir", dir], { home });
    const recalled = await runCliInProcess(["recall", "--dir", dir, "where does the deploy token live"], {
      home,
    });
    assert.ok(!recalled.stdout.includes(TOKEN), recalled.stdout);
    assert.ok(
      !memoryFiles(dir).some((file) => fs.readFileSync(path.join(dir, file), "utf8").includes(TOKEN)),
    );
  });
});

describe("the writer refuses control characters", () => {
  it("in the description, title, other keys and body, naming the field and the character", async () => {
    const dir = path.join(makeTempDir(), "memory");
    const base = { type: "user", description: "cafe order", body: "Orders a flat white." };
    const cases: [Record<string, unknown>, RegExp][] = [
      [
        { description: "title \u001b]0;PWNED\u0007 set \u001b[2J" },
        /description: holds the control character U\+001B \(ESC\)/,
      ],
      [{ description: "ring \u0007" }, /description: holds the control character U\+0007 \(BEL\)/],
      [{ title: "red \u001b[31m" }, /title: holds the control character U\+001B/],
      [
        { extra: { note: "a\u0000b" } },
        /frontmatter key "note": holds the control character U\+0000 \(NUL\)/,
      ],
      [{ body: "line one\nline \u0000two" }, /body: holds the control character U\+0000 \(NUL\) on line 2/],
      [{ body: "\u001b[31mFAIL\u001b[0m test" }, /body: .*U\+001B \(ESC\).*colour codes/],
    ];
    for (const [change, expected] of cases) {
      const message = await refusal(saveMemory(dir, { ...base, ...change } as never), "invalid-input");
      assert.match(message, expected);
    }
    assert.deepEqual(memoryFiles(dir), []);
    // Tabs and line breaks (CRLF included) are text.
    await saveMemory(dir, { ...base, body: "a\tb\r\nc\n" });
    assert.equal(memoryFiles(dir).length, 1);
  });

  it("in what writeMemoryText adds, not in lines the file already had", async () => {
    const dir = path.join(makeTempDir(), "memory");
    fs.mkdirSync(dir, { recursive: true });
    const old = "---\ndescription: old \u001b[1m\ntype: user\n---\nBody.\n";
    fs.writeFileSync(path.join(dir, "a.md"), old);
    await writeMemoryText(dir, "a.md", `${old}More.\n`);
    await refusal(writeMemoryText(dir, "a.md", `${old}More \u001b[2J.\n`), "invalid-input");
    await refusal(
      writeMemoryText(dir, "b.md", "---\ndescription: x\u0007\ntype: user\n---\nB\n"),
      "invalid-input",
    );
    assert.deepEqual(memoryFiles(dir), ["a.md"]);
  });

  it("in what saveMemory adds over an existing memory, not in what it already held", async () => {
    const dir = path.join(makeTempDir(), "memory");
    fs.mkdirSync(dir, { recursive: true });
    // A memory sync pulled byte for byte: a backspace in its description, a form feed in its body
    // and a NUL in another key.
    fs.writeFileSync(
      path.join(dir, "a.md"),
      "---\ndescription: notes\u0008 old\ntype: project\nowner: ops\u0000team\n---\nLine\u000c one.\n",
    );
    const base = { file: "a.md", type: "project", replace: true };
    await saveMemory(dir, { ...base, description: "notes\u0008 old", body: "Line\u000c one.\nLine two." });
    // The description edited, its old backspace kept; the other key carried over unchanged.
    await saveMemory(dir, {
      ...base,
      description: "notes\u0008 newer",
      body: "Line\u000c one.\nLine three.",
      extra: { owner: "ops\u0000team" },
    });
    const saved = parseFrontmatter(fs.readFileSync(path.join(dir, "a.md"), "utf8"));
    assert.equal(saved.description, "notes\u0008 newer");
    assert.equal(saved.data.owner, "ops\u0000team");
    assert.equal(saved.body, "Line\u000c one.\nLine three.\n");
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ description: "notes\u0008 \u0007" }, /description: holds the control character U\+0007 \(BEL\)/],
      [
        { body: "Line\u000c one.\nNew\u000c line." },
        /body: holds the control character U\+000C \(form feed\) on line 2/,
      ],
      [
        { extra: { owner: "ops\u0000team", tag: "x\u0007" } },
        /frontmatter key "tag": holds the control character U\+0007/,
      ],
      [{ title: "T \u001b[1m" }, /title: holds the control character U\+001B/],
    ];
    const before = fs.readFileSync(path.join(dir, "a.md"), "utf8");
    for (const [change, expected] of cases) {
      const input = { ...base, description: "notes\u0008 newer", body: "Line\u000c one.", ...change };
      const message = await refusal(saveMemory(dir, input as never), "invalid-input");
      assert.match(message, expected);
    }
    assert.equal(fs.readFileSync(path.join(dir, "a.md"), "utf8"), before);
  });

  it("memdir list and show print a hand-written ESC escaped, never raw", async () => {
    const home = makeTempDir();
    const dir = path.join(home, "memory");
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(
      path.join(dir, "a.md"),
      "---\ndescription: title \u001b]0;PWNED\u0007 cleared \u001b[2J\ntype: user\n---\nBody \u001b[31mred\r\n",
    );
    const listed = await runCliInProcess(["list", "--dir", dir], { home });
    assert.equal(listed.code, 0, listed.stderr);
    assert.ok(!/[\u0000-\u0008\u000b-\u001f]/.test(listed.stdout), JSON.stringify(listed.stdout));
    assert.match(listed.stdout, /title \\u001b\]0;PWNED\\u0007 cleared \\u001b\[2J/);
    const shown = await runCliInProcess(["show", "--dir", dir, "a.md"], { home });
    assert.equal(shown.code, 0, shown.stderr);
    assert.ok(!/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/.test(shown.stdout), JSON.stringify(shown.stdout));
    assert.match(shown.stdout, /Body \\u001b\[31mred\r\n/);
  });

  it("memdir recall, recall --explain, doctor and context print a teammate's ESC escaped, never raw", async () => {
    const home = makeTempDir();
    const dir = path.join(home, "memory");
    fs.mkdirSync(dir, { recursive: true });
    // As sync writes a pulled memory: verbatim, control characters included.
    fs.writeFileSync(
      path.join(dir, "tabs.md"),
      "---\ndescription: tabs \u001b[2J\u001b[31mOWNED\u001b]0;title-hijack\u0007\ntype: project\n---\nIndent with tabs \u001b[41mRED\u001b[0m.\n",
    );
    fs.writeFileSync(path.join(dir, "MEMORY.md"), "- [Tabs \u001b[2J](tabs.md) — tabs \u001b[31mOWNED\n");
    const raw = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;
    for (const args of [
      ["recall", "--dir", dir, "indent with tabs"],
      ["recall", "--dir", dir, "--explain", "indent with tabs"],
      ["doctor", "--dir", dir],
      ["context", "--dir", dir],
    ]) {
      const result = await runCliInProcess(args, { home });
      assert.ok(!raw.test(result.stdout), `${args.join(" ")}: ${JSON.stringify(result.stdout)}`);
    }
    const recalled = await runCliInProcess(["recall", "--dir", dir, "indent with tabs"], { home });
    assert.match(recalled.stdout, /Indent with tabs \\u001b\[41mRED/, "the memory is still shown, escaped");
  });
});

describe("the writer's size cap", () => {
  it("refuses a memory over the size doctor calls too large, with a clear message", async () => {
    const dir = path.join(makeTempDir(), "memory");
    const body = "word ".repeat(400000);
    const message = await refusal(
      saveMemory(dir, { type: "user", description: "big", body }),
      "invalid-input",
    );
    assert.match(message, /would be 1\.9 MB, over the 1 MB a memory file may hold/);
    // Just under the cap as a body, over it once the frontmatter is added: the whole file counts.
    const near = "x".repeat(MEMORY_FILE_MAX_BYTES - 10);
    await refusal(
      saveMemory(dir, { file: "near.md", type: "user", description: "near", body: near }),
      "invalid-input",
    );
    await refusal(
      writeMemoryText(dir, "big.md", `---\ndescription: big\ntype: user\n---\n${body}`),
      "invalid-input",
    );
    assert.deepEqual(memoryFiles(dir), []);
    await saveMemory(dir, {
      type: "user",
      description: "fits",
      body: "x".repeat(MEMORY_FILE_MAX_BYTES - 1000),
    });
    assert.equal(memoryFiles(dir).length, 1);
  });
});
