import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  classifyStatement,
  describeStatement,
  parseExplicitMemory,
} from "../../src/extract/explicit-intent.ts";

describe("parseExplicitMemory", () => {
  const remembers: [string, string, string][] = [
    ["记住：登录模块的集成测试不得 mock 数据库", "登录模块的集成测试不得 mock 数据库", "feedback"],
    ["remember: use pnpm, not npm", "use pnpm, not npm", "feedback"],
    ["Remember that I am a data scientist", "I am a data scientist", "user"],
    ["please remember to run lint before commits", "run lint before commits", "feedback"],
    ["don't forget the deploy freeze starts on Friday", "the deploy freeze starts on Friday", "project"],
    ["记一下我喜欢用 vim", "我喜欢用 vim", "user"],
    ["请记住我们周五发布", "我们周五发布", "project"],
    ["pnpm を使うことを覚えておいて", "pnpm を使う", "feedback"],
    [
      "Remember, the dashboard is at https://grafana.example.com/d/x",
      "the dashboard is at https://grafana.example.com/d/x",
      "reference",
    ],
    // The whole message in quotes, as `opencode run "…"` hands it on.
    [
      '"Remember that the release train leaves every Thursday at 15:00 UTC."',
      "the release train leaves every Thursday at 15:00 UTC.",
      "project",
    ],
    ["「记住：我们周五发布」", "我们周五发布", "project"],
    // A quote inside the message is the user's.
    ['remember: use "pnpm", not npm', 'use "pnpm", not npm', "feedback"],
  ];
  for (const [message, statement, type] of remembers) {
    it(`saves from ${JSON.stringify(message)}`, () => {
      assert.deepEqual(parseExplicitMemory(message), { kind: "remember", statement, type });
    });
  }

  const mentions = [
    "Do you remember when we fixed it?",
    "I can't remember the password",
    "remember when we talked about it?",
    "我记得你说过",
    '"Do you remember when we fixed it?"',
    "What should I remember?",
    "The remember-me checkbox is broken",
    "修复 src/auth/login.integration.test.ts 的失败测试，保留现有测试方式。",
  ];
  for (const message of mentions) {
    it(`does not save from a sentence that merely mentions remembering: ${JSON.stringify(message)}`, () => {
      assert.equal(parseExplicitMemory(message), null);
    });
  }

  it("recognises forget instructions in English, Chinese and Japanese", () => {
    assert.deepEqual(parseExplicitMemory("forget the pnpm rule"), { kind: "forget", query: "the pnpm rule" });
    assert.deepEqual(parseExplicitMemory("忘掉 pnpm 那条"), { kind: "forget", query: "pnpm 那条" });
    assert.deepEqual(parseExplicitMemory("pnpm のことを忘れて"), { kind: "forget", query: "pnpm" });
  });
});

describe("classifyStatement and describeStatement", () => {
  it("types rules as feedback, facts about the user as user, pointers as reference", () => {
    assert.equal(classifyStatement("never mock the database in integration tests"), "feedback");
    assert.equal(classifyStatement("I prefer short answers"), "user");
    assert.equal(classifyStatement("bugs are tracked in the LINEAR project INGEST"), "reference");
    assert.equal(classifyStatement("the auth rewrite is driven by compliance"), "project");
  });

  it("keeps the description to one short line", () => {
    assert.equal(describeStatement("first line\nsecond line"), "first line");
    const long = "x".repeat(400);
    const described = describeStatement(long);
    assert.ok(described.length <= 150);
    assert.ok(described.endsWith("…"));
  });
});
