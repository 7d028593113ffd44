import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { type BrowserContext, chromium, type Locator, type Page, type Route } from "playwright-core";
import { runCli } from "../helpers/cli.ts";
import { memory } from "../helpers/memory.ts";
import { makeTempDir, writeTree } from "../helpers/temp.ts";
import { startUi, type UiProcess } from "./ui-process.ts";

// The pages of `memdir ui` in a real browser: Debian's chromium driven by playwright-core (no
// browser download; .ci/run installs the package). The server is the real `memdir ui` child
// process; every change a page makes is checked on disk. The tests run in order on one server.

const CHROMIUM = "/usr/bin/chromium";
const FIXTURE = path.resolve(import.meta.dirname, "../fixtures/worked-example");
const QUERY = "修复 src/auth/login.integration.test.ts 的失败测试，保留现有测试方式。";
const DAY = 86_400_000;
const FILLER = 58;
/** The memories besides the filler notes: the worked example's two and the six written below. */
const OTHERS = 8;
const WIDTHS = [390, 1280];
/** Where the screenshots go (git-ignored): `test-output/ui/` at the top of the repository. */
const SHOTS = path.join(repositoryRoot(), "test-output", "ui");

function repositoryRoot(): string {
  let dir = import.meta.dirname;
  while (!fs.existsSync(path.join(dir, "package.json")) && path.dirname(dir) !== dir) dir = path.dirname(dir);
  return dir;
}

// The browser globals of the functions below that run in the page (the page's policy refuses
// strings to evaluate); declared here, since the project's types are Node's, not the DOM's.
interface PageElement {
  textContent: string | null;
  scrollWidth: number;
  clientWidth: number;
}
declare const document: {
  querySelector(selector: string): PageElement | null;
  querySelectorAll(selector: string): PageElement[] & { length: number };
  documentElement: PageElement;
  activeElement: (PageElement & { className: string }) | null;
};
declare function getComputedStyle(element: PageElement): { outlineStyle: string };
declare const window: { __pwned?: number; __healthLog?: string[] };
declare class MutationObserver {
  constructor(callback: (records: { attributeName: string | null; oldValue: string | null }[]) => void);
  observe(target: PageElement | null, options: Record<string, unknown>): void;
}

function setup() {
  const home = makeTempDir();
  const root = path.join(home, "root");
  const memoryDir = path.join(root, "projects", "-work-shop", "memory");
  fs.cpSync(FIXTURE, memoryDir, { recursive: true });
  const files: Record<string, string> = {
    "reference-unsafe.md": memory(
      "a memory holding markup",
      'Keep **this** bold.\n\n<script>window.__pwned = 1</script>\n<img src="x" onerror="window.__pwned = 2">\n[click](javascript:window.__pwned=3)',
      "reference",
    ),
    "user-role.conflict-ab12cd.md": `---\ndescription: the user is a frontend engineer\ntype: user\nsource: sync\nconflictOf: user-role.md\n---\nTypeScript and React.\n`,
    "user-role.md": `---\ndescription: the user is a backend engineer\ntype: user\nsource: cli\n---\nGo and Postgres.\n`,
    "project-fridays.md": memory("deploys happen on fridays", "Release train leaves Friday.", "project"),
    "project-fridays-copy.md": memory("Deploys happen on Fridays.", "release train leaves friday", "project"),
    "feedback-login-flow.md": `---\ndescription: 登录流程先校验令牌再查会话\ntype: feedback\nsource: agent\nsession: sess-42\nanchors:\n  - path: src/auth/login.ts\n---\nSee [[user-role]] and [[not-written-yet]].\n`,
  };
  for (let n = 1; n <= FILLER; n++)
    files[`reference-note-${String(n).padStart(2, "0")}.md`] = memory(
      `reference note number ${n}`,
      `Note ${n}.`,
      "reference",
    );
  writeTree(memoryDir, files);
  // Ages: the worked example two days old, the notes older, so the newest are the ones above.
  const now = Date.now();
  for (const [index, file] of fs.readdirSync(memoryDir).entries()) {
    const when = file.startsWith("reference-note-")
      ? now - 30 * DAY - index * 60_000
      : now - 2 * DAY - index * 60_000;
    fs.utimesSync(path.join(memoryDir, file), new Date(when), new Date(when));
  }
  writeTree(path.join(root, "projects", "-work-blog", "memory"), {
    "MEMORY.md": "- [Writer](user-writer.md) — the user writes the blog in English\n",
    "user-writer.md": memory("the user writes the blog in English", "", "user"),
  });
  return { home, root, memoryDir, env: { MEMDIR_ROOT: root } };
}

describe("memdir ui in a browser", {
  skip: fs.existsSync(CHROMIUM) ? false : `${CHROMIUM} is missing (apt-get install chromium)`,
}, () => {
  let ui: UiProcess;
  let context: BrowserContext;
  let page: Page;
  // Registered before the temp dir's removal, so the browser and server are gone by then.
  after(async () => {
    await Promise.allSettled([context?.close(), ui?.stop()]);
  });
  const { home, memoryDir, env } = setup();

  before(async () => {
    ui = await startUi(["--dir", memoryDir], { home, env, ownCleanup: true });
    context = await chromium.launchPersistentContext(path.join(home, "chromium-profile"), {
      executablePath: CHROMIUM,
      headless: true,
      viewport: { width: 1280, height: 800 },
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        // Chromium still asks Google (accounts, component updates, autofill) in the background: no
        // name resolves, so nothing leaves the machine; the page is on 127.0.0.1 and needs none.
        "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
      ],
    });
    page = context.pages()[0] ?? (await context.newPage());
    page.setDefaultTimeout(10_000);
    // Nothing on the page may come from anywhere but the server.
    await context.route("**/*", (route) =>
      route.request().url().startsWith(ui.origin) ? route.continue() : route.abort(),
    );
  });

  const foreign: string[] = [];
  const ready = (name: string) => page.waitForSelector(`#page[data-ready="${name}"]`);
  /** Opens a page from the navigation bar, as a user clicks it (no reload). */
  const open = async (name: string) => {
    await page.locator(`nav a[data-page="${name}"]`).click();
    await ready(name);
  };
  const textOf = async (locator: Locator) => (await locator.textContent()) ?? "";
  const rows = () => page.locator("#memory-list li.memory-row");
  const filesShown = async () =>
    rows().evaluateAll((items) => items.map((item) => item.getAttribute("data-file") ?? ""));
  /** Opens a memory's page: by its link in the list when shown, else by its address. */
  const openMemory = async (file: string) => {
    const row = page.locator(`li.memory-row[data-file="${file}"] a.memory-link`);
    if ((await page.locator("#page[data-ready=memories]").count()) === 1 && (await row.count()) === 1)
      await row.click();
    else await page.goto(`${ui.origin}/memory/${encodeURIComponent(file)}`);
    await page.waitForFunction((name) => document.querySelector("#memory-file")?.textContent === name, file);
    await ready("memory");
  };
  const indexText = () => fs.readFileSync(path.join(memoryDir, "MEMORY.md"), "utf8");

  /** Saves a screenshot of the page under test-output/ui/ and checks that it is not blank. */
  async function screenshot(name: string): Promise<void> {
    fs.mkdirSync(SHOTS, { recursive: true });
    const file = path.join(SHOTS, `${name}.png`);
    await page.screenshot({ path: file, fullPage: true });
    // Decoded by the browser itself: how many colours the picture has (a blank page has one).
    const probe = await context.newPage();
    const colours: number = await probe.evaluate(`(async () => {
      const base64 = ${JSON.stringify(fs.readFileSync(file).toString("base64"))};
      const bitmap = await createImageBitmap(await (await fetch("data:image/png;base64," + base64)).blob());
      const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
      const drawing = canvas.getContext("2d");
      drawing.drawImage(bitmap, 0, 0);
      const pixels = drawing.getImageData(0, 0, bitmap.width, bitmap.height).data;
      const seen = new Set();
      for (let i = 0; i < pixels.length; i += 4) seen.add((pixels[i] << 16) | (pixels[i + 1] << 8) | pixels[i + 2]);
      return seen.size;
    })()`);
    await probe.close();
    assert.ok(colours > 10, `${name}.png looks blank (${colours} colours)`);
  }

  it("opens the memories page from the printed URL: newest first, paged, filtered by type and source", async () => {
    page.on("request", (request) => {
      if (!request.url().startsWith(ui.origin) && !request.url().startsWith("data:"))
        foreign.push(request.url());
    });
    await page.goto(ui.url);
    await ready("memories");
    assert.equal(new URL(page.url()).search, "", "the token left the address bar");
    assert.equal(await rows().count(), 50, "one page of 50");
    assert.match(await textOf(page.locator("#page-number")), /page 1 of 2/);
    assert.match(await textOf(page.locator("#memory-count")), new RegExp(`^${FILLER + OTHERS} memories`));
    const newest = await filesShown();
    assert.ok(!newest[0].startsWith("reference-note-"), "the notes are the oldest");
    // The title is the description; the file name is there too, smaller.
    const fridays = page.locator('li.memory-row[data-file="project-fridays.md"]');
    assert.equal(await textOf(fridays.locator(".title")), "deploys happen on fridays");
    assert.equal(await textOf(fridays.locator(".file")), "project-fridays.md");
    assert.match(await textOf(fridays.locator("time")), /2 days ago/);
    await page.locator("#next-page").click();
    await page.waitForFunction(() =>
      document.querySelector("#page-number")?.textContent?.startsWith("page 2"),
    );
    assert.equal(await rows().count(), FILLER + OTHERS - 50);
    assert.ok((await filesShown()).every((file) => file.startsWith("reference-note-")));

    await page.selectOption("#filter-type", "project");
    await page.waitForFunction(() => document.querySelector("#memory-count")?.textContent?.startsWith("3 "));
    assert.deepEqual(
      await rows().evaluateAll((items) => items.map((item) => item.getAttribute("data-type"))),
      ["project", "project", "project"],
    );
    await page.selectOption("#filter-type", "");
    await page.selectOption("#filter-source", "sync");
    await page.waitForFunction(() => document.querySelector("#memory-count")?.textContent?.startsWith("1 "));
    const conflict = rows().first();
    assert.equal(await conflict.getAttribute("data-file"), "user-role.conflict-ab12cd.md");
    assert.equal(await textOf(conflict.locator(".badge.flag")), "conflict");
    assert.match(
      (await conflict.locator(".badge.flag").getAttribute("title")) ?? "",
      /conflicts with user-role\.md/,
    );
    await page.selectOption("#filter-source", "");
    await page.waitForFunction(() => document.querySelectorAll("#memory-list li.memory-row").length === 50);
    await page.fill("#filter-anchor", "auth/login");
    await page.waitForFunction(() => document.querySelector("#memory-count")?.textContent?.startsWith("1 "));
    assert.deepEqual(await filesShown(), ["feedback-login-flow.md"]);
    await page.fill("#filter-anchor", "");
    await page.selectOption("#filter-date", "7");
    await page.waitForFunction(
      (count) => document.querySelector("#memory-count")?.textContent?.startsWith(`${count} `),
      OTHERS,
    );
    assert.ok(
      (await filesShown()).every((file) => !file.startsWith("reference-note-")),
      "the notes are a month old",
    );
    await page.selectOption("#filter-date", "");
    await page.waitForFunction(() => document.querySelectorAll("#memory-list li.memory-row").length === 50);
  });

  it("shows a loading state in the list until the server's first page comes", async () => {
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const isList = (url: URL) => url.pathname === "/api/memories";
    const hold = async (route: Route) => {
      await held;
      await route.continue();
    };
    await page.route(isList, hold);
    try {
      await page.goto(`${ui.origin}/`);
      const waiting = page.locator("#memory-list [data-loading]");
      await waiting.waitFor();
      assert.match(await textOf(waiting), /Loading memories/);
      assert.equal(await waiting.getAttribute("role"), "status", "read out by a screen reader");
      assert.equal(await rows().count(), 0);
      release();
      await ready("memories");
      assert.equal(await rows().count(), 50);
      assert.equal(await page.locator("[data-loading]").count(), 0, "the loading state is gone");
    } finally {
      release();
      await page.unroute(isList, hold);
    }
  });
  it("draws the answer to the newest filter when an older answer comes back after it", async () => {
    // Seen on a busy box: the answer for "sync" came after the one for "all sources", and the
    // list stayed on the one conflict file. Here the first answer is held until the second is drawn.
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const isSync = (url: URL) =>
      url.pathname === "/api/memories" && url.searchParams.get("source") === "sync";
    const hold = async (route: Route) => {
      await held;
      await route.continue();
    };
    await page.route(isSync, hold);
    try {
      await page.locator("#next-page").click();
      await page.waitForFunction(() =>
        document.querySelector("#page-number")?.textContent?.startsWith("page 2"),
      );
      const asked = page.waitForRequest((request) => isSync(new URL(request.url())));
      await page.selectOption("#filter-source", "sync");
      const stale = await asked;
      await page.selectOption("#filter-source", "");
      await page.waitForFunction(() =>
        document.querySelector("#page-number")?.textContent?.startsWith("page 1"),
      );
      const finished = page.waitForEvent("requestfinished", (request) => request === stale);
      release();
      await finished;
      // The page reads the held answer's body a task or two after it finishes; a few tasks
      // later a page without the guard has drawn it (web/dom.js newestOnly).
      await page.evaluate(
        () => new Promise<void>((done) => setTimeout(() => setTimeout(() => setTimeout(done, 0), 0), 0)),
      );
      assert.equal(await rows().count(), 50, "the list of all sources, not the held answer's one file");
      assert.match(await textOf(page.locator("#memory-count")), new RegExp(`^${FILLER + OTHERS} memories`));
    } finally {
      release();
      await page.unroute(isSync, hold);
    }
  });
  it("searches on the server, best match first", async () => {
    await page.fill("#search", "mock 数据库");
    await page.waitForFunction(() => document.querySelector("#memory-count")?.textContent?.includes("match"));
    assert.equal(await rows().first().getAttribute("data-file"), "feedback-real-database.md");
    assert.ok((await rows().count()) < 10, "only the matches");
    await page.fill("#search", "");
    await page.waitForFunction(() => document.querySelectorAll("#memory-list li.memory-row").length === 50);
  });

  it("renders a memory's markdown and shows its markup as text: a <script> in a memory never runs", async () => {
    await openMemory("reference-unsafe.md");
    await page.waitForSelector("#memory-body");
    assert.equal(await textOf(page.locator("#memory-body strong")), "this");
    assert.match(await textOf(page.locator("#memory-body")), /<script>window.__pwned = 1<\/script>/);
    assert.equal(await page.locator("#memory-body script, #memory-body img, #memory-body a").count(), 0);
    await page.waitForTimeout(200);
    assert.equal(await page.evaluate(() => typeof window.__pwned), "undefined");
  });

  it("gives each memory its own page at /memory/<file>: title, provenance, links, backlinks and anchors", async () => {
    await page.goto(`${ui.origin}/memory/feedback-login-flow.md`);
    await ready("memory");
    assert.equal(await textOf(page.locator("#memory-title")), "登录流程先校验令牌再查会话");
    assert.equal(await textOf(page.locator("#memory-file")), "feedback-login-flow.md");
    const meta = await textOf(page.locator("#memory-meta"));
    assert.match(meta, /source: agent/);
    assert.match(meta, /session: sess-42/);
    assert.equal(await textOf(page.locator("#links a.memory-link .title")), "the user is a backend engineer");
    assert.match(await textOf(page.locator("#links")), /\[\[not-written-yet\]\] not written yet/);
    assert.equal(await textOf(page.locator("#anchors")), "src/auth/login.ts");
    // Following the link and then the backlink comes back, without a reload.
    await page.locator("#links a.memory-link").click();
    await page.waitForFunction(() => document.querySelector("#memory-file")?.textContent === "user-role.md");
    assert.equal(new URL(page.url()).pathname, "/memory/user-role.md");
    await page.locator('#backlinks a[href="/memory/feedback-login-flow.md"]').click();
    await page.waitForFunction(
      () => document.querySelector("#memory-file")?.textContent === "feedback-login-flow.md",
    );
    await page.goBack();
    await page.waitForFunction(() => document.querySelector("#memory-file")?.textContent === "user-role.md");
  });

  it("recall shows exactly what memdir recall --explain says, and picks feedback-real-database.md for the worked example", async () => {
    await open("recall");
    await page.fill("#recall-query", QUERY);
    await page.locator("#recall").click();
    await page.waitForSelector("#candidates");
    const first = page.locator("#candidates li.candidate").first();
    assert.equal(await first.getAttribute("data-status"), "picked");
    assert.equal(await first.getAttribute("data-file"), "feedback-real-database.md");
    assert.equal(
      await textOf(first.locator(".title")),
      "登录模块的集成测试不得 mock 数据库",
      "titled by its description",
    );
    const cli = await runCli(["recall", QUERY, "--explain", "--json", "--dir", memoryDir], { home, env });
    assert.equal(cli.code, 0, cli.stderr);
    const expected = JSON.parse(cli.stdout) as {
      candidates: { status: string; file: string; score: number | null; reason: string }[];
      messages: { content: string }[];
    };
    const shown = await page
      .locator("#candidates li.candidate")
      .evaluateAll((items) =>
        items.map((item) => [
          item.querySelector(".status")?.textContent,
          item.querySelector(".score-value")?.textContent,
          item.getAttribute("data-file"),
          item.querySelector(".reason")?.textContent,
        ]),
      );
    assert.deepEqual(
      shown,
      expected.candidates.map((c) => [
        c.status,
        c.score === null ? "-" : c.score.toFixed(3),
        c.file,
        c.reason,
      ]),
    );
    // Each score is a bar as long as its share of the best score.
    const best = Math.max(...expected.candidates.map((c) => c.score ?? 0));
    const bars = await page
      .locator("#candidates .score .bar")
      .evaluateAll((items) =>
        items.map(
          (bar) =>
            (bar.firstElementChild?.getBoundingClientRect().width ?? 0) / bar.getBoundingClientRect().width,
        ),
      );
    expected.candidates.forEach((candidate, index) => {
      const share = candidate.score === null ? 0 : Math.max(0.01, candidate.score / best);
      assert.ok(
        Math.abs(bars[index] - share) < 0.02,
        `${candidate.file}: bar ${bars[index]} for share ${share}`,
      );
    });
    assert.deepEqual(
      await page.locator("pre.hidden-message").allInnerTexts(),
      expected.messages.map((m) => m.content),
    );
    assert.match(
      await textOf(page.locator("#inject-summary")),
      new RegExp(`would inject ${expected.messages.length} memor`),
    );
  });

  it("edits a memory through the single writer: the file and its MEMORY.md line change together", async () => {
    await open("memories");
    await openMemory("feedback-real-database.md");
    await page.locator("#edit").click();
    await page.fill("#edit-description", "登录集成测试一律连接真实数据库");
    await page.fill("#edit-body", "必须连接真实数据库。\n\n**原因**：mock 测试曾掩盖迁移失败。");
    await page.locator("#save").click();
    await page.waitForFunction(() => document.querySelector("#index-line")?.textContent?.includes("一律"));
    const onDisk = fs.readFileSync(path.join(memoryDir, "feedback-real-database.md"), "utf8");
    assert.match(onDisk, /^description: 登录集成测试一律连接真实数据库$/m);
    assert.match(onDisk, /mock 测试曾掩盖迁移失败/);
    assert.equal(
      indexText()
        .split("\n")
        .find((line) => line.includes("(feedback-real-database.md)")),
      await textOf(page.locator("#index-line")),
    );
    assert.match(indexText(), /\(feedback-real-database\.md\) — 登录集成测试一律连接真实数据库/);
    assert.equal(await textOf(page.locator("#memory-body strong")), "原因");
    assert.match(
      await textOf(page.locator("#memory-history li").first()),
      /save ui: edited feedback-real-database\.md/,
      "the memory's own history shows the save",
    );
  });

  it("refuses a secret with the writer's own message and leaves the file as it was", async () => {
    const secret = `ghp_${"a1B2c3D4e5".repeat(4)}`;
    const file = path.join(memoryDir, "user-role.md");
    const before = fs.readFileSync(file, "utf8");
    await openMemory("user-role.md");
    await page.locator("#edit").click();
    await page.fill("#edit-body", `Go and Postgres. Token: ${secret}`);
    await page.locator("#save").click();
    await page.waitForFunction(() => (document.querySelector("#save-error")?.textContent ?? "") !== "");
    const shown = await textOf(page.locator("#save-error"));
    // The message `memdir add` gets from the writer for the same body.
    const scratch = makeTempDir();
    const added = await runCli(
      [
        "add",
        `Go and Postgres. Token: ${secret}`,
        "--type",
        "user",
        "--description",
        "the user is a backend engineer",
        "--dir",
        scratch,
      ],
      { home },
    );
    assert.equal(added.code, 1);
    assert.equal(shown, added.stderr.trim());
    assert.match(shown, /GitHub/);
    assert.doesNotMatch(shown, new RegExp(secret), "the secret itself is not echoed");
    assert.equal(fs.readFileSync(file, "utf8"), before);
    await page.locator("#cancel").click();
  });

  it("deletes a memory with its index line, and Undo brings both back", async () => {
    const file = path.join(memoryDir, "project-auth-migration.md");
    const text = fs.readFileSync(file, "utf8");
    const line = indexText()
      .split("\n")
      .find((l) => l.includes("(project-auth-migration.md)"));
    assert.ok(line);
    await openMemory("project-auth-migration.md");
    await page.locator("#delete").click();
    await page.waitForSelector("#undo-delete");
    assert.ok(!fs.existsSync(file));
    assert.doesNotMatch(indexText(), /project-auth-migration\.md/);
    await page.waitForSelector("#memory-missing");
    await page.locator("#undo-delete").click();
    await page.waitForFunction(
      () => document.querySelector("#memory-file")?.textContent === "project-auth-migration.md",
    );
    assert.equal(fs.readFileSync(file, "utf8"), text);
    assert.ok(indexText().split("\n").includes(line));
  });

  it("inbox: rejects a proposal, accepts an edited one, accepts another as proposed", async () => {
    const propose = async () => {
      const result = await runCli(["dream", "--force", "--propose", "--json", "--dir", memoryDir], {
        home,
        env,
      });
      assert.equal(result.code, 0, result.stderr);
      return (JSON.parse(result.stdout) as { proposal: { id: string } }).proposal.id;
    };
    const copy = path.join(memoryDir, "project-fridays-copy.md");
    const first = await propose();
    await open("inbox");
    const panel = page.locator(`.proposal[data-id="${first}"]`);
    const lines = await panel.locator(".diff div").allTextContents();
    assert.ok(
      lines.some((line) => line.startsWith("+ ")) && lines.some((line) => line.startsWith("- ")),
      lines.join("\n"),
    );
    await screenshot("inbox-with-proposal-1280");
    await panel.locator(".reject").click();
    await page.waitForSelector("#inbox-empty");
    assert.ok(fs.existsSync(copy), "a rejected proposal changes nothing");
    // Rejected as `memdir inbox reject` does: kept on record as rejected, no longer waiting.
    const inbox = await runCli(["inbox", "--json", "--dir", memoryDir], { home, env });
    assert.deepEqual(JSON.parse(inbox.stdout), []);
    const record = JSON.parse(
      fs.readFileSync(path.join(memoryDir, ".proposals", first, "proposal.json"), "utf8"),
    );
    assert.ok(record.rejectedAt, "the rejection is on record");

    const second = await propose();
    await open("history");
    await open("inbox");
    const edited = page.locator(`.proposal[data-id="${second}"]`);
    await edited.locator(".edit-accept").click();
    const editor = edited.locator('textarea:not([hidden]):not([data-file="MEMORY.md"])').first();
    const target = await editor.getAttribute("data-file");
    assert.ok(target);
    const text = (await editor.inputValue()).replace(/\n*$/, "\nChecked in review.\n");
    await editor.fill(text);
    await edited.locator(".accept-edited").click();
    await page.waitForSelector("#inbox-empty");
    assert.equal(fs.readFileSync(path.join(memoryDir, target), "utf8").includes("Checked in review."), true);
    assert.ok(!fs.existsSync(copy), "the duplicate was merged");

    writeTree(memoryDir, {
      "feedback-small-commits.md": memory("keep commits small", "One change per commit."),
      "feedback-small-commits-copy.md": memory("Keep commits small.", "one change per commit"),
    });
    const third = await propose();
    await open("history");
    await open("inbox");
    await page.locator(`.proposal[data-id="${third}"] .accept`).click();
    await page.waitForSelector("#inbox-empty");
    assert.ok(!fs.existsSync(path.join(memoryDir, "feedback-small-commits-copy.md")));
  });

  it("history lists each change with its files, and Undo takes one back", async () => {
    await open("history");
    const entries = page.locator(".history-entry");
    assert.ok((await entries.count()) >= 5);
    const apply = entries.filter({ hasText: "apply:" }).first();
    assert.match(await textOf(apply), /- feedback-small-commits-copy\.md/);
    assert.match(
      await textOf(
        page.locator(".history-entry", { hasText: /^save: ui: deleted project-auth-migration\.md/ }),
      ),
      /undone by/,
    );
    const applyId = await apply.getAttribute("data-id");
    await apply.locator(".undo").click();
    await page.waitForFunction(
      (id) => document.querySelector(`.history-entry[data-id="${id}"]`)?.textContent?.includes("undone by"),
      applyId,
    );
    assert.ok(
      fs.existsSync(path.join(memoryDir, "feedback-small-commits-copy.md")),
      "the merged-away memory is back",
    );
  });

  it("health draws each check as it finishes: MEMORY.md's first, while the memory files are still being checked", async () => {
    await open("overview");
    // Every change to the Health view's two markers, in order, as the page made it.
    await page.evaluate(() => {
      const log: string[] = [];
      window.__healthLog = log;
      new MutationObserver((records) => {
        for (const record of records) log.push(`${record.attributeName}=${record.oldValue}`);
      }).observe(document.querySelector("#page"), {
        subtree: true,
        attributes: true,
        attributeOldValue: true,
        attributeFilter: ["data-checks", "data-state"],
      });
    });
    await open("health");
    const log = await page.evaluate(() => window.__healthLog ?? []);
    // Each old value is what the marker said before a change: one check was added at a time.
    assert.deepEqual(
      log.filter((entry) => entry.startsWith("data-checks=")),
      ["data-checks=", "data-checks=index", "data-checks=index memories", "data-checks=index memories files"],
    );
    const firstCheck = log.indexOf("data-checks=");
    const finished = log.indexOf("data-state=checking");
    assert.ok(
      firstCheck >= 0 && finished > firstCheck,
      `the first check drawn before the end: ${log.join(", ")}`,
    );
    assert.equal(await page.locator("#health").getAttribute("data-state"), "done");
  });

  it("health lists doctor's findings with the safe fixes as a button, and the index against its limits", async () => {
    await open("health");
    assert.match(await textOf(page.locator("#index-size")), /lines: \d+ of 200/);
    assert.match(await textOf(page.locator("#index-size")), /bytes: \d+ of 25000/);
    const missing = page.locator('#issues li[data-code="missing-pointer"]');
    assert.ok((await missing.count()) >= FILLER);
    await page.locator("#fix").click();
    await page.waitForSelector("#fix-result li");
    assert.equal(await page.locator('#issues li[data-code="missing-pointer"]').count(), 0);
    assert.match(indexText(), /\(reference-note-01\.md\)/);
  });

  it("updates live: a memory written on disk appears in the list, and a memory's page shows its new text", async () => {
    await open("memories");
    await page.waitForSelector("body[data-live=on]");
    writeTree(memoryDir, {
      "project-live.md": memory("written while the page was open", "First.", "project"),
    });
    await page.waitForSelector('li.memory-row[data-file="project-live.md"]');
    await openMemory("project-live.md");
    await page.waitForSelector("body[data-live=on]");
    writeTree(memoryDir, { "project-live.md": memory("rewritten by an agent", "Second.", "project") });
    await page.waitForFunction(
      () => document.querySelector("#memory-title")?.textContent === "rewritten by an agent",
    );
    assert.equal(await textOf(page.locator("#memory-body")), "Second.");
  });

  it("can be used from the keyboard: Tab reaches a memory's link, which shows a focus ring, and Enter opens it", async () => {
    await page.goto(`${ui.origin}/`);
    await ready("memories");
    let focused = "";
    for (let presses = 0; presses < 40 && focused !== "memory-link"; presses++) {
      await page.keyboard.press("Tab");
      focused = await page.evaluate(() => document.activeElement?.className ?? "");
    }
    assert.equal(focused, "memory-link", "Tab reaches the first memory");
    const outline = await page.evaluate(() => {
      const active = document.activeElement;
      return active ? getComputedStyle(active).outlineStyle : "none";
    });
    assert.notEqual(outline, "none", "the focused link is outlined");
    await page.keyboard.press("Enter");
    await ready("memory");
  });

  for (const width of WIDTHS)
    it(`lays out every page at ${width} px without horizontal scrolling, and saves a screenshot of each`, async () => {
      await page.setViewportSize({ width, height: 900 });
      const pages: [string, string, (() => Promise<void>)?][] = [
        ["overview", "/overview"],
        ["memories", "/"],
        ["memory", "/memory/feedback-login-flow.md"],
        [
          "recall",
          "/recall",
          async () => {
            await page.fill("#recall-query", QUERY);
            await page.locator("#recall").click();
            await page.waitForSelector("#candidates li.candidate");
          },
        ],
        ["inbox", "/inbox"],
        ["history", "/history"],
        ["health", "/health"],
      ];
      try {
        for (const [name, address, prepare] of pages) {
          await page.goto(`${ui.origin}${address}`);
          await ready(name);
          await prepare?.();
          const { scrollWidth, clientWidth } = await page.evaluate(() => ({
            scrollWidth: document.documentElement.scrollWidth,
            clientWidth: document.documentElement.clientWidth,
          }));
          await screenshot(`${name}-${width}`);
          // The first screen alone as well: a phone's full page is too tall to look at whole.
          await page.screenshot({ path: path.join(SHOTS, `${name}-${width}-screen.png`) });
          assert.ok(
            scrollWidth <= clientWidth,
            `${name} at ${width} px scrolls sideways: ${scrollWidth} > ${clientWidth}`,
          );
          // Chart labels stay readable at either width (a fixed viewBox once drew them 5px tall).
          const labelHeights = await page.$$eval("svg.chart text.axis", (texts) =>
            texts.map((text) => text.getBoundingClientRect().height),
          );
          for (const height of labelHeights)
            assert.ok(height >= 9, `${name} at ${width} px: a chart label is ${height.toFixed(1)} px tall`);
        }
      } finally {
        await page.setViewportSize({ width: 1280, height: 800 });
      }
    });

  it("switches to another memory directory under the root from the picker", async () => {
    await open("memories");
    const options = page.locator("#dir-picker option");
    const other = await Promise.all(
      Array.from({ length: await options.count() }, (_, n) => options.nth(n).getAttribute("value")),
    );
    assert.equal(other.length, 2);
    await page.selectOption("#dir-picker", String(other[1]));
    await page.waitForFunction(() => document.querySelector("#memory-count")?.textContent?.startsWith("1 "));
    assert.equal(await rows().first().getAttribute("data-file"), "user-writer.md");
    assert.deepEqual(foreign, [], "nothing was fetched from elsewhere");
  });
});
