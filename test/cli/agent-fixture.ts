// Shared set-up for the agent CLI tests: a temp HOME with a project and the worked example's memory.
import fs from "node:fs";
import path from "node:path";
import { sanitizeProjectPath } from "../../src/memdir/location/paths.ts";
import type { FakeRequest } from "../../src/testing/index.ts";
import { makeTempDir, writeTree } from "../helpers/temp.ts";

export const INDEX_LINE = "- [Real database](feedback-real-database.md) — 登录模块的集成测试不得 mock 数据库";

/** A HOME with project `shop` and its memory dir holding the worked example (docs/design.md#worked-example). */
export function agentFixture() {
  const home = makeTempDir();
  const project = path.join(home, "shop");
  const projectDir = path.join(home, ".claude", "projects", sanitizeProjectPath(project));
  const memoryDir = path.join(projectDir, "memory");
  writeTree(project, {
    "src/auth/login.integration.test.ts": "test('login', async () => {\n  await db.connect();\n});\n",
  });
  writeTree(memoryDir, {
    "MEMORY.md": `${INDEX_LINE}\n- [Auth migration](project-auth-migration.md) — 认证重构由合规要求推动\n`,
    "feedback-real-database.md":
      "---\ndescription: 登录模块的集成测试不得 mock 数据库\ntype: feedback\n---\n登录模块的集成测试必须连接真实数据库。\nWhy: 一次 mock 测试通过了，但生产迁移失败了。\n",
    "project-auth-migration.md":
      "---\ndescription: 认证重构由合规要求推动\ntype: project\n---\n认证重构是合规要求，不是技术债清理。\n",
  });
  const twoDaysAgo = new Date(Date.now() - 2 * 24 * 3600 * 1000);
  fs.utimesSync(path.join(memoryDir, "feedback-real-database.md"), twoDaysAgo, twoDaysAgo);
  return { home, project, projectDir, memoryDir };
}

/** Environment pointing the CLI at the fake server (Anthropic wire format). */
export function fakeModelEnv(baseURL: string): Record<string, string> {
  return { ANTHROPIC_API_KEY: "test-key", ANTHROPIC_BASE_URL: baseURL };
}

/** The main agent's requests (not the selector's side queries, not background extraction). */
export function agentRequests(requests: readonly FakeRequest[]): FakeRequest[] {
  return requests.filter((r) => r.jsonSchema === null && r.system.includes("careful coding agent"));
}

/** A request's messages as text. */
export function bodyText(request: FakeRequest): string {
  return JSON.stringify((request.body as { messages: unknown[] }).messages);
}
