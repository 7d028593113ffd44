import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { matchesGlob } from "../../src/agent/tools/glob-match.ts";
import { createToolContext, toolDefinition } from "../../src/agent/tools/spec.ts";
import { editTool, globTool, grepTool, readTool, writeTool } from "../../src/agent/tools.ts";
import { makeTempDir, writeTree } from "../helpers/temp.ts";

function setup() {
  const home = makeTempDir();
  const project = path.join(home, "shop");
  const memoryDir = path.join(home, ".claude/projects/-shop/memory");
  writeTree(project, {
    "src/auth/login.ts": "export function login() {\n  return db.connect();\n}\n",
    "src/auth/login.integration.test.ts": "test('login', () => {\n  // uses the real database\n});\n",
    "README.md": "# shop\n",
    "node_modules/dep/index.ts": "export const login = 1;\n",
  });
  fs.mkdirSync(memoryDir, { recursive: true });
  const context = createToolContext({ cwd: project, memoryDir, now: () => 1_000 });
  return { home, project, memoryDir, context };
}

describe("Read", () => {
  it("returns numbered lines and records the file as read", async () => {
    const { project, context } = setup();
    const result = await readTool.handler({ file_path: "src/auth/login.ts" }, context);
    assert.equal(result.isError, undefined);
    assert.match(result.content, /^ {5}1\texport function login\(\) \{\n {5}2\t {2}return db\.connect\(\);/);
    assert.ok(context.readFileState.has(path.join(project, "src/auth/login.ts")));
  });

  it("shows only the asked line range and says how to read more", async () => {
    const { project, context } = setup();
    const lines = Array.from({ length: 50 }, (_, i) => `line ${i + 1}`).join("\n");
    writeTree(project, { "long.txt": lines });
    const result = await readTool.handler(
      { file_path: path.join(project, "long.txt"), offset: 10, limit: 3 },
      context,
    );
    assert.equal(result.content.split("\n").filter((l) => l.includes("\tline")).length, 3);
    assert.match(result.content, / {4}10\tline 10\n/);
    assert.match(result.content, /showing lines 10-12 of 50/);
  });

  it("answers with a readable error for binary files, folders and missing files", async () => {
    const { project, context } = setup();
    fs.writeFileSync(path.join(project, "logo.png"), Buffer.from([0x89, 0x50, 0x00, 0x01]));
    const binary = await readTool.handler({ file_path: "logo.png" }, context);
    assert.equal(binary.isError, true);
    assert.match(binary.content, /binary file/);
    const folder = await readTool.handler({ file_path: "src" }, context);
    assert.match(folder.content, /is a directory; use Glob/);
    const missing = await readTool.handler({ file_path: "nope.ts" }, context);
    assert.equal(missing.isError, true);
    assert.match(missing.content, /no such file/);
  });
});

describe("Write and Edit", () => {
  it("writes a project file, creating folders", async () => {
    const { project, context } = setup();
    const result = await writeTool.handler({ file_path: "docs/notes.md", content: "a\nb\n" }, context);
    assert.equal(result.isError, undefined);
    assert.match(result.content, /Created .*docs\/notes\.md \(2 lines\)/);
    assert.equal(fs.readFileSync(path.join(project, "docs/notes.md"), "utf8"), "a\nb\n");
    assert.deepEqual(context.filesWritten, [path.join(project, "docs/notes.md")]);
  });

  it("routes memory-dir writes through the single writer, which refuses secrets", async () => {
    const { memoryDir, context } = setup();
    const saved = await writeTool.handler(
      {
        file_path: path.join(memoryDir, "feedback-db.md"),
        content: "---\ndescription: x\ntype: feedback\n---\nbody\n",
      },
      context,
    );
    assert.equal(saved.memoryFile, "feedback-db.md");
    const token = `ghp_${"a1B2c3D4e5".repeat(4)}abcd`;
    const refused = await writeTool.handler(
      { file_path: path.join(memoryDir, "reference-token.md"), content: `token: ${token}\n` },
      context,
    );
    assert.equal(refused.isError, true);
    assert.match(refused.content, /secret/i);
    assert.ok(!refused.content.includes(token), "the error never repeats the secret");
    assert.equal(fs.existsSync(path.join(memoryDir, "reference-token.md")), false);
  });

  it("edits an exact, unique string and refuses ambiguous or missing ones", async () => {
    const { project, context } = setup();
    const file = path.join(project, "src/auth/login.ts");
    const ok = await editTool.handler(
      { file_path: file, old_string: "db.connect()", new_string: "db.open()" },
      context,
    );
    assert.equal(ok.isError, undefined);
    assert.match(fs.readFileSync(file, "utf8"), /return db\.open\(\);/);

    writeTree(project, { "twice.txt": "x = 1\nx = 1\n" });
    const twice = path.join(project, "twice.txt");
    const ambiguous = await editTool.handler(
      { file_path: twice, old_string: "x = 1", new_string: "x = 2" },
      context,
    );
    assert.equal(ambiguous.isError, true);
    assert.match(ambiguous.content, /occurs 2 times/);
    const all = await editTool.handler(
      { file_path: twice, old_string: "x = 1", new_string: "x = 2", replace_all: true },
      context,
    );
    assert.equal(all.isError, undefined);
    assert.equal(fs.readFileSync(twice, "utf8"), "x = 2\nx = 2\n");

    const missing = await editTool.handler(
      { file_path: file, old_string: "nowhere", new_string: "x" },
      context,
    );
    assert.equal(missing.isError, true);
    assert.match(missing.content, /not found/);
  });

  it("edits MEMORY.md under the writer lock and keeps the other lines", async () => {
    const { memoryDir, context } = setup();
    writeTree(memoryDir, { "MEMORY.md": "- [A](a.md) — first\n- [B](b.md) — second\n" });
    const result = await editTool.handler(
      {
        file_path: path.join(memoryDir, "MEMORY.md"),
        old_string: "- [B](b.md) — second\n",
        new_string: "- [B](b.md) — second\n- [C](c.md) — third\n",
      },
      context,
    );
    assert.equal(result.isError, undefined, result.content);
    assert.equal(result.memoryFile, "MEMORY.md");
    assert.equal(
      fs.readFileSync(path.join(memoryDir, "MEMORY.md"), "utf8"),
      "- [A](a.md) — first\n- [B](b.md) — second\n- [C](c.md) — third\n",
    );
  });
});

describe("Glob and Grep", () => {
  it("matches ** across folders, * within one, and skips node_modules", async () => {
    const { project, context } = setup();
    const result = await globTool.handler({ pattern: "**/*.ts" }, context);
    const files = result.content.split("\n").map((f) => path.relative(project, f));
    assert.deepEqual(files.sort(), ["src/auth/login.integration.test.ts", "src/auth/login.ts"]);
    const top = await globTool.handler({ pattern: "*.md" }, context);
    assert.equal(top.content, path.join(project, "README.md"));
    assert.ok(matchesGlob("a/b/c.test.ts", "**/*.{test,spec}.ts"));
    assert.ok(!matchesGlob("a/b/c.ts", "*.ts"));
    assert.ok(matchesGlob("a/b/c.ts", "*.ts", { matchBase: true }));
  });

  it("returns matching lines as path:line:text, filtered by glob", async () => {
    const { project, context } = setup();
    const result = await grepTool.handler({ pattern: "real database", glob: "*.test.ts" }, context);
    assert.equal(
      result.content,
      `${path.join(project, "src/auth/login.integration.test.ts")}:2:  // uses the real database`,
    );
    const none = await grepTool.handler({ pattern: "nothing-like-this" }, context);
    assert.match(none.content, /No matches/);
    const invalid = await grepTool.handler({ pattern: "(" }, context);
    assert.equal(invalid.isError, true);
  });

  it("bounds its output", async () => {
    const { project, context } = setup();
    writeTree(project, { "many.txt": "hit\n".repeat(500) });
    const result = await grepTool.handler({ pattern: "hit", path: "many.txt", max_results: 10 }, context);
    assert.equal(result.content.split("\n").filter((l) => l.endsWith(":hit")).length, 10);
    assert.match(result.content, /more matches not shown/);
  });
});

describe("toolDefinition", () => {
  it("gives each tool a JSON schema for the model", () => {
    const definition = toolDefinition(editTool);
    assert.equal(definition.name, "Edit");
    const schema = definition.inputSchema as {
      type: string;
      required: string[];
      properties: Record<string, unknown>;
    };
    assert.equal(schema.type, "object");
    assert.deepEqual(schema.required.sort(), ["file_path", "new_string", "old_string"]);
    assert.ok("replace_all" in schema.properties);
  });
});
