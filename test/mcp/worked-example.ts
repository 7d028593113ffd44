import fs from "node:fs";
import path from "node:path";
import { writeTree } from "../helpers/temp.ts";

/** The prompt of the worked example (docs/design.md#worked-example). */
export const WORKED_EXAMPLE_PROMPT = "修复 src/auth/login.integration.test.ts 的失败测试，保留现有测试方式。";

const TWO_DAYS_MS = 2 * 86_400_000;

/**
 * Writes the worked-example memory dir (docs/design.md#worked-example) into `memoryDir`: the index and two memories
 * (`feedback-real-database.md`, `project-auth-migration.md`), both saved two days ago.
 * Shared by the MCP and hook tests so both check recall against the same memories.
 */
export function writeWorkedExample(memoryDir: string): string {
  writeTree(memoryDir, {
    "MEMORY.md":
      "- [Real database](feedback-real-database.md) — 登录模块的集成测试不得 mock 数据库\n" +
      "- [Auth migration](project-auth-migration.md) — 认证重构由合规要求推动\n",
    "feedback-real-database.md":
      "---\ndescription: 登录模块的集成测试不得 mock 数据库\ntype: feedback\n---\n" +
      "登录模块的集成测试必须连接真实数据库。\nWhy: 曾经 mock 的测试通过了，但生产迁移失败了。\n",
    "project-auth-migration.md":
      "---\ndescription: 认证重构由合规要求推动\ntype: project\n---\n认证模块的重构是合规要求推动的，不是技术债清理。\n",
  });
  const then = new Date(Date.now() - TWO_DAYS_MS);
  for (const file of ["feedback-real-database.md", "project-auth-migration.md"])
    fs.utimesSync(path.join(memoryDir, file), then, then);
  return memoryDir;
}
