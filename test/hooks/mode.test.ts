import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { hostIsClaudeCode } from "../../src/hosts/claude-code/recognize.ts";
import { makeTempDir } from "../helpers/temp.ts";

describe("hostIsClaudeCode", () => {
  const configDir = makeTempDir("memdir-claude-config-");
  const projects = path.join(configDir, "projects");
  /** A transcript file at `relative` under the config dir, made on disk. */
  const transcript = (relative: string) => {
    const file = path.join(configDir, relative);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, "");
    return file;
  };

  it("knows Claude Code by a transcript under <config dir>/projects/, a folder or file named ..foo included", () => {
    assert.equal(hostIsClaudeCode({}, transcript("projects/-work-shop/s1.jsonl"), configDir), true);
    assert.equal(hostIsClaudeCode({}, transcript("projects/..foo/s2.jsonl"), configDir), true);
    assert.equal(hostIsClaudeCode({}, transcript("projects/..foo.jsonl"), configDir), true);
  });

  it("not by a transcript beside or above projects/, nor by the folder itself", () => {
    assert.equal(hostIsClaudeCode({}, transcript("projects-old/-work-shop/s3.jsonl"), configDir), false);
    assert.equal(hostIsClaudeCode({}, transcript("s4.jsonl"), configDir), false);
    assert.equal(hostIsClaudeCode({}, projects, configDir), false);
    assert.equal(hostIsClaudeCode({}, "projects/-work-shop/s1.jsonl", configDir), false, "a relative path");
  });

  it("by CLAUDECODE=1 whatever the transcript", () => {
    assert.equal(hostIsClaudeCode({ CLAUDECODE: "1" }, undefined, configDir), true);
  });
});
