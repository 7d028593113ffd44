import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { InstructionFile } from "../../src/instructions/files.ts";
import {
  formatUserContext,
  prependUserContext,
  USER_CONTEXT_MESSAGE_ID,
} from "../../src/instructions/user-context.ts";
import type { Message } from "../../src/types.ts";

function file(path: string, type: InstructionFile["type"], content: string): InstructionFile {
  return { path, type, content, bytes: Buffer.byteLength(content), imports: [] };
}

// Noon local time, so the date is the same in every time zone the tests run in.
const now = () => new Date(2026, 7, 10, 12, 0, 0).getTime();

describe("formatUserContext", () => {
  it("puts the preamble first, then each file with what it is, then today's date", () => {
    const context = formatUserContext(
      [
        file("/home/me/.claude/CLAUDE.md", "User", "Answer in English."),
        file("/Users/me/shop/CLAUDE.md", "Project", "Use pnpm."),
        file("/Users/me/shop/CLAUDE.local.md", "Local", "My sandbox is at :8080."),
        file(
          "/home/me/.claude/projects/-Users-me-shop/memory/MEMORY.md",
          "AutoMem",
          "- [真实数据库测试](feedback-real-database.md) — 登录模块的集成测试不得 mock 数据库",
        ),
      ],
      { now },
    );
    const parts = context.split("\n\n");
    assert.match(parts[0], /instructions from the user and from this codebase/);
    assert.match(parts[0], /take precedence over your default behaviour/);
    assert.match(parts[0], /follow them exactly/);
    assert.deepEqual(parts.slice(1), [
      "Contents of /home/me/.claude/CLAUDE.md (user's private global instructions for all projects):",
      "Answer in English.",
      "Contents of /Users/me/shop/CLAUDE.md (project instructions, checked into the codebase):",
      "Use pnpm.",
      "Contents of /Users/me/shop/CLAUDE.local.md (user's private project instructions, not checked in):",
      "My sandbox is at :8080.",
      "Contents of /home/me/.claude/projects/-Users-me-shop/memory/MEMORY.md (user's auto-memory, persists across conversations):",
      "- [真实数据库测试](feedback-real-database.md) — 登录模块的集成测试不得 mock 数据库",
      "Today's date is 2026-08-10.",
    ]);
  });

  it("skips empty files, and with nothing to show gives only the date", () => {
    assert.equal(
      formatUserContext([file("/x/CLAUDE.md", "Project", "")], { now }),
      "Today's date is 2026-08-10.",
    );
    assert.equal(formatUserContext([], { now }), "Today's date is 2026-08-10.");
  });

  it("describes managed files and the team index", () => {
    const context = formatUserContext(
      [
        file("/etc/claude-code/CLAUDE.md", "Managed", "policy"),
        file("/m/team/MEMORY.md", "TeamMem", "- [T](t.md) — t"),
      ],
      { now },
    );
    assert.match(
      context,
      /Contents of \/etc\/claude-code\/CLAUDE.md \(instructions set by the administrator/,
    );
    assert.match(
      context,
      /Contents of \/m\/team\/MEMORY.md \(team's shared memory, persists across conversations\):/,
    );
  });
});

describe("prependUserContext", () => {
  const conversation: Message[] = [
    { id: "u1", role: "user", content: "修复 src/auth/login.integration.test.ts 的失败测试" },
  ];

  it("puts the context first as a hidden user message and leaves the input untouched", () => {
    const messages = prependUserContext(conversation, "CONTEXT");
    assert.deepEqual(messages, [
      { id: USER_CONTEXT_MESSAGE_ID, role: "user", content: "CONTEXT", isMeta: true },
      conversation[0],
    ]);
    assert.equal(conversation.length, 1);
  });

  it("replaces an earlier user context instead of adding a second one", () => {
    const once = prependUserContext(conversation, "OLD");
    const twice = prependUserContext(once, "NEW");
    assert.deepEqual(
      twice.map((m) => m.content),
      ["NEW", conversation[0].content],
    );
  });

  it("adds nothing for an empty context", () => {
    assert.deepEqual(prependUserContext(conversation, ""), conversation);
  });
});
