import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { sanitizeProjectPath } from "../../src/memdir/location/paths.ts";
import {
  type FakeModelServer,
  type FakeRequest,
  type FakeStep,
  startFakeModelServer,
} from "../../src/testing/index.ts";
import { memdirOnPath, occurrences, processesOfHome } from "../helpers/claude-code.ts";
import { runCli } from "../helpers/cli.ts";
import {
  CODEX_VERSION,
  type CodexRun,
  fromCodex,
  installCodex,
  responsesVisibleText,
  runCodex,
} from "../helpers/codex.ts";
import { memory } from "../helpers/memory.ts";
import { makeDiskTempDir, writeTree } from "../helpers/temp.ts";
import { waitFor } from "../helpers/wait.ts";

// The real Codex CLI, installed from the npm registry and run as `codex exec` against the fake
// model server (Responses API): what `memdir setup codex` wired into it — hooks.json with their
// trust entries, the MCP server — puts in front of the model, and what its tools write. No run
// passes --dangerously-bypass-hook-trust: the hooks run because setup trusted them.

const install = installCodex();
const skip = "skip" in install ? install.skip : false;
const codexBin = "bin" in install ? install.bin : "";

const INDEX_LINE = "- [Staging freeze](project-staging-freeze.md) — staging deploys freeze on Fridays";
const SECRET_WORD = "KESTREL-7"; // only in the memory's body: seen by the model only if recall surfaced it
const PROMPT = "When does the staging deploy freeze start this week?";
const ANSWER = "The staging freeze starts Friday at noon.";

interface CodexProject {
  home: string;
  project: string;
  memoryDir: string;
  pathDirs: string[];
}

/** A temp HOME with a git project `shop` whose memory dir holds one memory. */
function codexProject(): CodexProject {
  const home = makeDiskTempDir("memdir-codex-");
  const project = path.join(home, "shop");
  fs.mkdirSync(project);
  execFileSync("git", ["init", "-q", project]);
  const memoryDir = path.join(home, ".claude", "projects", sanitizeProjectPath(project), "memory");
  writeTree(memoryDir, {
    "MEMORY.md": `${INDEX_LINE}\n`,
    "project-staging-freeze.md": memory(
      "staging deploys freeze on Fridays",
      `The staging deploy freeze starts every Friday at noon; the release channel calls it ${SECRET_WORD}.`,
      "project",
    ),
  });
  after(() => {
    for (const pid of processesOfHome(home)) {
      try {
        process.kill(pid, "SIGKILL"); // only what this test's runs left behind
      } catch {}
    }
  });
  return { home, project, memoryDir, pathDirs: [memdirOnPath(home)] };
}

/** `memdir setup codex` as a user runs it, in the temp HOME and project. */
async function setupMemdir({ home, project }: CodexProject): Promise<void> {
  const setup = await runCli(["setup", "codex", "--json"], {
    home,
    cwd: project,
    env: { CODEX_HOME: path.join(home, ".codex") },
  });
  assert.equal(setup.code, 0, `memdir setup: ${setup.stderr}`);
  const written = (JSON.parse(setup.stdout) as { files: { path: string; changed: boolean }[] }).files;
  assert.deepEqual(
    written.map(({ path: file, changed }) => ({ path: file, changed })),
    [
      { path: path.join(home, ".codex", "hooks.json"), changed: true },
      { path: path.join(home, ".codex", "config.toml"), changed: true },
    ],
  );
}

/** A fake model server answering every request with `step`, closed when the suite or test ends. */
async function modelServer(step: (request: FakeRequest) => FakeStep): Promise<FakeModelServer> {
  const server = startFakeModelServer(step);
  after(async () => (await server).close());
  return server;
}

function promptCodex(fixture: CodexProject, server: FakeModelServer, prompt = PROMPT): Promise<CodexRun> {
  return runCodex(codexBin, {
    ...fixture,
    cwd: fixture.project,
    prompt,
    baseURL: server.openaiBaseURL,
    // A generous bound for memdir's hooks on a loaded machine (Codex hands its environment to them).
    env: { MEMDIR_HOOK_TIMEOUT_MS: "60000" },
  });
}

/** Waits until nothing the run started is still running (memdir's detached extraction, warm-up). */
async function backgroundDone(home: string): Promise<void> {
  await waitFor(() => processesOfHome(home).length === 0, { what: "the run's background processes" });
}

/** Whether a request offered memdir's MCP tools: Codex puts them in one `namespace` tool. */
function memdirToolsOffered(request: FakeRequest): string[] {
  const tools = (request.body?.tools ?? []) as { type: string; name?: string; tools?: { name: string }[] }[];
  const namespace = tools.find((tool) => tool.type === "namespace" && tool.name === "mcp__memdir");
  return (namespace?.tools ?? []).map((tool) => tool.name);
}

function hasToolResult(request: FakeRequest): boolean {
  return toolResults(request) > 0;
}

/** How many tool results a request carries: the tool rounds before it. */
function toolResults(request: FakeRequest): number {
  return ((request.body?.input ?? []) as { type?: string }[]).filter(
    (item) => item.type === "function_call_output",
  ).length;
}

const TITLE = `Codex CLI ${CODEX_VERSION} with memdir (the real CLI, offline, hooks trusted by setup)`;

if (skip) it(TITLE, { skip }, () => {});
else
  describe(TITLE, () => {
    describe("one prompt", () => {
      const fixture = codexProject();
      const started = modelServer(() => ANSWER);
      let result: { server: FakeModelServer; run: CodexRun } | null = null;
      before(async () => {
        await setupMemdir(fixture);
        const server = await started;
        result = { server, run: await promptCodex(fixture, server) };
        await backgroundDone(fixture.home);
      });
      const suiteRun = () => {
        assert.ok(result, "the suite's prompt was sent");
        return result;
      };
      const mainRequest = () => {
        const { server } = suiteRun();
        const main = server.requests.filter(
          (request) => fromCodex(request) && responsesVisibleText(request).includes(PROMPT),
        );
        assert.equal(main.length, 1, "one model request carries the prompt");
        return main[0]!;
      };

      it("answers through the Responses API", () => {
        const { run } = suiteRun();
        assert.equal(run.code, 0, `codex exited ${run.code}: ${run.stderr}`);
        assert.equal(run.stdout.trim(), ANSWER, run.stderr);
        assert.match(run.stderr, /hook: SessionStart Completed/, "the trusted hooks ran");
        assert.match(run.stderr, /hook: UserPromptSubmit Completed/);
      });

      it("puts the index (session start) and the recalled memory (the prompt's hook) in the request, once each", () => {
        const text = responsesVisibleText(mainRequest());
        assert.equal(occurrences(text, INDEX_LINE), 1, "the index line");
        assert.equal(occurrences(text, SECRET_WORD), 1, "the recalled memory's body");
      });

      it("offers memdir's MCP tools on the first request (required = true outlasts Codex's start-up grace)", () => {
        assert.ok(memdirToolsOffered(mainRequest()).includes("memory_save"), "memory_save in mcp__memdir");
      });

      it("makes no model request of memdir's own", () => {
        const { server } = suiteRun();
        assert.deepEqual(
          server.requests
            .filter((request) => !fromCodex(request))
            .map((request) => request.headers["user-agent"]),
          [],
        );
      });
    });

    // Three separate runs, each from a fresh setup: the MCP tool must be there every time.
    for (const attempt of [1, 2, 3]) {
      it(`saves a memory through Codex's MCP tool mcp__memdir.memory_save (run ${attempt} of 3)`, async () => {
        const fixture = codexProject();
        await setupMemdir(fixture);
        const save = {
          type: "project",
          description: "the release train leaves on Thursdays",
          content:
            "The release train leaves every Thursday at 15:00 UTC.\nWhy: the QA rota ends on Thursdays.",
        };
        const prompt = "For future sessions: the release train leaves every Thursday at 15:00 UTC.";
        const server = await modelServer((request) => {
          if (hasToolResult(request)) return "Saved.";
          if (memdirToolsOffered(request).includes("memory_save"))
            return { toolCall: { name: "mcp__memdir__memory_save", input: save } };
          return "memory_save was not offered.";
        });
        const run = await promptCodex(fixture, server, prompt);
        assert.equal(run.code, 0, run.stderr);
        assert.equal(run.stdout.trim(), "Saved.", run.stderr);
        const saved = fs.readdirSync(fixture.memoryDir).filter((file) => file.includes("release-train"));
        assert.equal(
          saved.length,
          1,
          `one new memory file in ${fs.readdirSync(fixture.memoryDir).join(", ")}`,
        );
        const file = saved[0]!;
        assert.match(
          fs.readFileSync(path.join(fixture.memoryDir, file), "utf8"),
          /every Thursday at 15:00 UTC/,
        );
        const index = fs.readFileSync(path.join(fixture.memoryDir, "MEMORY.md"), "utf8");
        assert.ok(index.startsWith(`${INDEX_LINE}\n`), "the earlier index line is kept");
        assert.equal(occurrences(index, `](${file})`), 1, "the new memory's index line, once");
        const answered = server.requests.filter((request) => fromCodex(request) && hasToolResult(request));
        assert.ok(responsesVisibleText(answered.at(-1)!).includes(file), "the tool result names the file");
        await backgroundDone(fixture.home);
      });
    }

    // The control: the trust entries are what makes the hooks run. An edited hook no longer
    // matches its hash, and Codex skips it without a word.
    it("skips a memdir hook edited after setup, and memdir doctor says which", async () => {
      const fixture = codexProject();
      await setupMemdir(fixture);
      const hooksFile = path.join(fixture.home, ".codex", "hooks.json");
      const hooks = JSON.parse(fs.readFileSync(hooksFile, "utf8")) as {
        hooks: Record<string, { hooks: { timeout: number }[] }[]>;
      };
      hooks.hooks.UserPromptSubmit![0]!.hooks[0]!.timeout = 20;
      fs.writeFileSync(hooksFile, JSON.stringify(hooks, null, 2));
      const server = await modelServer(() => ANSWER);
      const run = await promptCodex(fixture, server);
      assert.equal(run.code, 0, run.stderr);
      assert.match(run.stderr, /hook: SessionStart Completed/, "the untouched hook still runs");
      assert.doesNotMatch(run.stderr, /hook: UserPromptSubmit/, "the edited one is skipped");
      const [main] = server.requests.filter((request) => responsesVisibleText(request).includes(PROMPT));
      const text = responsesVisibleText(main!);
      assert.equal(occurrences(text, INDEX_LINE), 1);
      assert.equal(occurrences(text, SECRET_WORD), 0, "no recall without the prompt's hook");
      const doctor = await runCli(["doctor", "--json"], {
        home: fixture.home,
        cwd: fixture.project,
        env: { CODEX_HOME: path.join(fixture.home, ".codex") },
      });
      const { issues } = JSON.parse(doctor.stdout) as { issues: { code: string; message: string }[] };
      const untrusted = issues.filter((issue) => issue.code === "codex-hook-untrusted");
      assert.equal(untrusted.length, 1, doctor.stdout);
      assert.ok(
        untrusted[0]!.message.includes(
          `${hooksFile}:user_prompt_submit:0:0: it changed since it was trusted`,
        ),
        untrusted[0]!.message,
      );
      await backgroundDone(fixture.home);
    });

    // Codex has no read tool: its model reads through the shell, and PostToolUse names that
    // tool `Bash` with the command line. memdir answers for a line that only reads one file.
    describe("file hook", () => {
      it("brings the memory anchored to a file the model reads with cat, then sed -n, once: the second read adds nothing", async () => {
        const fixture = codexProject();
        await setupMemdir(fixture);
        const login = path.join(fixture.project, "src", "auth", "login.ts");
        fs.mkdirSync(path.dirname(login), { recursive: true });
        fs.writeFileSync(login, "export function login() {\n  return refresh();\n}\n");
        const fileWord = "OSPREY-3"; // only in the anchored memory: the model sees it only if PostToolUse added it
        fs.writeFileSync(
          path.join(fixture.memoryDir, "project-login-refresh.md"),
          `---\ndescription: token refresh rule\ntype: project\nanchors:\n  - path: src/auth/login.ts\n---\nEvery change here must keep the ${fileWord} refresh order.\n`,
        );
        const reads = ["cat src/auth/login.ts", "sed -n '1,2p' src/auth/login.ts"];
        const prompt = "Show me what the entry point contains.";
        const answer = "It returns refresh().";
        const server = await modelServer((request) => {
          const round = toolResults(request);
          return round < reads.length
            ? { toolCall: { name: "exec_command", input: { cmd: reads[round] } } }
            : answer;
        });
        const run = await promptCodex(fixture, server, prompt);
        assert.equal(run.code, 0, run.stderr);
        assert.equal(run.stdout.trim(), answer, run.stderr);
        await backgroundDone(fixture.home);
        const main = server.requests.filter((request) => fromCodex(request));
        const byResults = (count: number) => main.find((request) => toolResults(request) === count);
        assert.ok(byResults(0) && byResults(1) && byResults(2), `three model requests (${main.length})`);
        const text = (count: number) => responsesVisibleText(byResults(count)!);
        assert.ok(text(1).includes("return refresh()"), "the command ran: its output is in the request");
        assert.equal(occurrences(text(0), fileWord), 0, "not before the file was read");
        assert.equal(occurrences(text(1), fileWord), 1, "after the read: the memory, once");
        assert.equal(occurrences(text(2), fileWord), 1, "the second read adds it no more");
        assert.equal(
          occurrences(run.stderr, "hook: PostToolUse Completed"),
          2,
          "the hook ran after each read",
        );
      });
    });

    it('ends a "remember …" prompt with exactly one memory', async () => {
      const fixture = codexProject();
      await setupMemdir(fixture);
      const prompt = "remember that the release train leaves every Thursday at 15:00 UTC";
      // The model saves only what it was not told is saved already, as the memory rules ask.
      const server = await modelServer((request) => {
        const text = responsesVisibleText(request);
        if (hasToolResult(request) || /memdir: (Saved|Updated) /.test(text)) return "Noted.";
        return {
          toolCall: {
            name: "mcp__memdir__memory_save",
            input: { type: "project", description: "release train on Thursdays", content: prompt },
          },
        };
      });
      const before = new Set(fs.readdirSync(fixture.memoryDir));
      const run = await promptCodex(fixture, server, prompt);
      assert.equal(run.code, 0, run.stderr);
      await backgroundDone(fixture.home);
      const added = fs
        .readdirSync(fixture.memoryDir)
        .filter((file) => !before.has(file) && file.endsWith(".md"));
      assert.equal(added.length, 1, `new memories: ${added.join(", ")}`);
      assert.match(fs.readFileSync(path.join(fixture.memoryDir, added[0]!), "utf8"), /Thursday at 15:00 UTC/);
      const index = fs.readFileSync(path.join(fixture.memoryDir, "MEMORY.md"), "utf8");
      assert.equal(occurrences(index, `](${added[0]})`), 1);
    });
  });
