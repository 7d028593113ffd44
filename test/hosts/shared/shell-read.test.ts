import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { shellReadPath } from "../../../src/hosts/shared/shell-read.ts";

// Codex's model reads files through its shell, so the file hook takes the file from a command
// line that only reads one (docs/design.md#file-hook). Anything else must name no file: a wrong
// guess would show memories about a file the agent never looked at.

describe("shellReadPath", () => {
  it("names the file of each listed read command", () => {
    const reads: Array<[string, string]> = [
      ["cat src/auth/login.ts", "src/auth/login.ts"],
      ["cat -n src/a.ts", "src/a.ts"],
      ["nl src/a.ts", "src/a.ts"],
      ["nl -ba src/a.ts", "src/a.ts"],
      ["head src/a.ts", "src/a.ts"],
      ["head -n 40 src/a.ts", "src/a.ts"],
      ["head -n40 src/a.ts", "src/a.ts"],
      ["tail -20 src/a.ts", "src/a.ts"],
      ["sed -n '1,80p' src/a.ts", "src/a.ts"],
      ["sed -n 12p src/a.ts", "src/a.ts"],
      ["sed -n '200,$p' src/a.ts", "src/a.ts"],
      ["bat src/a.ts", "src/a.ts"],
      ["bat --plain src/a.ts", "src/a.ts"],
      ["cat /repo/src/a.ts", "/repo/src/a.ts"],
      ["  cat\tsrc/a.ts  ", "src/a.ts"],
    ];
    for (const [command, file] of reads) assert.equal(shellReadPath(command), file, command);
  });

  it("names the file read into filters that read none of their own", () => {
    const reads: Array<[string, string]> = [
      ["nl -ba src/a.ts | sed -n '1,40p'", "src/a.ts"],
      ["cat src/a.ts | head", "src/a.ts"],
      ["cat -n src/a.ts|head -n 20", "src/a.ts"],
      ["nl -ba src/a.ts | sed -n '200,260p' | head -n 10", "src/a.ts"],
      ["cat 'src/a|b.ts' | tail -5", "src/a|b.ts"],
    ];
    for (const [command, file] of reads) assert.equal(shellReadPath(command), file, command);
  });

  it("takes a quoted path as one word", () => {
    assert.equal(shellReadPath("cat 'docs/release notes.md'"), "docs/release notes.md");
    assert.equal(shellReadPath('cat "docs/release notes.md"'), "docs/release notes.md");
    assert.equal(shellReadPath("cat docs/'a b'.md"), "docs/a b.md");
  });

  it("names no file for a chain, a pipe, a redirection, a subshell or an expansion", () => {
    for (const command of [
      "cat src/a.ts | grep token",
      "cat src/a.ts | sh",
      "cat src/a.ts | tee out.txt",
      "cat src/a.ts | head src/b.ts",
      "cat src/a.ts | sed -i 's/a/b/'",
      "cat src/a.ts | sed -n '1,40p' | sh",
      "cat src/a.ts |",
      "| cat src/a.ts",
      "grep token src/a.ts | head",
      "cat src/a.ts > out.txt",
      "cat < src/a.ts",
      "cat src/a.ts; rm -rf build",
      "cat src/a.ts && echo done",
      "cat src/a.ts || true",
      "cat src/a.ts &",
      "cat $(ls src/a.ts)",
      "cat `ls`",
      "cat $FILE",
      'cat "$HOME/a.ts"',
      "cat src/*.ts",
      "cat src/a?.ts",
      "cat src/{a,b}.ts",
      "cat ~/a.ts",
      "cat src/a\\ b.ts",
      "cat src/a.ts\ncat src/b.ts",
      "cat 'src/a.ts",
      "(cat src/a.ts)",
    ])
      assert.equal(shellReadPath(command), null, command);
  });

  it("names no file for other commands, other options, two files or none", () => {
    for (const command of [
      "ls src",
      "rm src/a.ts",
      "cat",
      "cat src/a.ts src/b.ts",
      "cat -A src/a.ts",
      "cat -- src/a.ts",
      "cat -n",
      "head -c 10 src/a.ts",
      "head -n src/a.ts",
      "tail -f src/a.ts",
      "sed -i 's/a/b/' src/a.ts",
      "sed -n 's/a/b/p' src/a.ts",
      "sed '1,5p' src/a.ts",
      "sed -n '1,5p;7p' src/a.ts",
      "less src/a.ts",
      "bash -lc 'cat src/a.ts'",
      "env cat src/a.ts",
      "constructor src/a.ts",
      "toString src/a.ts",
      "",
      "   ",
    ])
      assert.equal(shellReadPath(command), null, command);
  });
});
