import assert from "node:assert/strict";
import fs from "node:fs";
import http from "node:http";
import net from "node:net";
import path from "node:path";
import { describe, it } from "node:test";
import { saveProposal } from "../../src/memdir/write/proposal-store.ts";
import { runCli, runCliInProcess } from "../helpers/cli.ts";
import { memory } from "../helpers/memory.ts";
import { makeTempDir, writeTree } from "../helpers/temp.ts";
import { waitFor } from "../helpers/wait.ts";
import { startUi, type UiProcess } from "./ui-process.ts";

// `memdir ui` as a user starts it: a real child process, spoken to over real HTTP. These tests
// hold the security rules of docs/ui.md#security: the token, the cookie, Host and Origin.

interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** One HTTP request to the UI with exactly these headers (fetch would not let a test set Host). */
function request(
  ui: UiProcess,
  pathAndQuery: string,
  options: { method?: string; headers?: Record<string, string>; body?: unknown } = {},
): Promise<Reply> {
  const body = options.body === undefined ? undefined : JSON.stringify(options.body);
  return new Promise((resolve, reject) => {
    const outgoing = http.request(
      {
        host: "127.0.0.1",
        port: ui.port,
        path: pathAndQuery,
        method: options.method ?? "GET",
        headers: {
          ...(body === undefined ? {} : { "content-type": "application/json" }),
          ...options.headers,
        },
      },
      (incoming) => {
        let text = "";
        incoming.setEncoding("utf8").on("data", (chunk: string) => {
          text += chunk;
        });
        incoming.on("end", () =>
          resolve({ status: incoming.statusCode ?? 0, headers: incoming.headers, body: text }),
        );
      },
    );
    outgoing.on("error", reject);
    outgoing.end(body);
  });
}

function setup() {
  const home = makeTempDir();
  const root = path.join(home, "root");
  const memoryDir = path.join(root, "projects", "-work-shop", "memory");
  writeTree(memoryDir, {
    "MEMORY.md": "- [Real database](feedback-real-db.md) — login tests hit a real database\n",
    "feedback-real-db.md": memory("login tests hit a real database", "Never mock the database."),
  });
  return { home, root, memoryDir, env: { MEMDIR_ROOT: root } };
}

/** The session cookie (`name=value`) the token visit sets. */
async function login(ui: UiProcess): Promise<string> {
  const reply = await request(ui, `/?token=${ui.token}`);
  assert.equal(reply.status, 302);
  const cookie = String(reply.headers["set-cookie"]?.[0] ?? "");
  return cookie.split(";")[0];
}

/** The version of `file` the page would edit (what it sends back with a save). */
async function versionOf(ui: UiProcess, cookie: string, file: string): Promise<string> {
  const reply = await request(ui, `/api/memory?file=${encodeURIComponent(file)}`, { headers: { cookie } });
  assert.equal(reply.status, 200, reply.body);
  return (JSON.parse(reply.body) as { version: string }).version;
}

/** Opens `/api/events` (of `dir`, else the start dir) and collects its events as they come. */
async function openEvents(ui: UiProcess, cookie: string, dir?: string) {
  const events: { event: string; data: string }[] = [];
  const query = dir === undefined ? "" : `?${new URLSearchParams({ dir })}`;
  const stream = await new Promise<http.IncomingMessage>((resolve, reject) => {
    http
      .get({ host: "127.0.0.1", port: ui.port, path: `/api/events${query}`, headers: { cookie } }, resolve)
      .on("error", reject);
  });
  let buffer = "";
  stream.setEncoding("utf8").on("data", (chunk: string) => {
    buffer += chunk;
    for (let end = buffer.indexOf("\n\n"); end >= 0; end = buffer.indexOf("\n\n")) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const field = (name: string) =>
        block
          .split("\n")
          .find((line) => line.startsWith(`${name}: `))
          ?.slice(name.length + 2) ?? "";
      if (field("event") !== "") events.push({ event: field("event"), data: field("data") });
    }
  });
  return { stream, events };
}

describe("memdir ui (the server)", () => {
  it("prints one JSON line with a 127.0.0.1 URL and a long random token, and listens on 127.0.0.1 only", async () => {
    const { home, memoryDir, env } = setup();
    const ui = await startUi(["--dir", memoryDir], { home, env });
    const second = await startUi(["--dir", memoryDir], { home, env });
    assert.equal(new URL(ui.url).hostname, "127.0.0.1");
    assert.ok(ui.token.length >= 32, ui.url);
    assert.notEqual(ui.token, second.token, "each run has its own token");
    // Bound to 127.0.0.1 itself: another loopback address of the machine does not answer.
    const refused = await new Promise<boolean>((resolve) => {
      const socket = net.connect({ host: "127.0.0.2", port: ui.port });
      socket.once("connect", () => {
        socket.destroy();
        resolve(false);
      });
      socket.once("error", () => resolve(true));
    });
    assert.ok(refused, "127.0.0.2 must not reach the server");
    assert.equal(await ui.stop("SIGINT"), 0, "Ctrl-C stops it cleanly");
    assert.equal(await second.stop("SIGTERM"), 0, "SIGTERM stops it cleanly");
    assert.match(ui.stderr(), /stopped/);
  });

  it("refuses requests without the token or cookie, and trades the token for an HttpOnly SameSite=Strict cookie", async () => {
    const { home, memoryDir, env } = setup();
    const ui = await startUi(["--dir", memoryDir], { home, env });
    for (const target of [
      "/",
      "/app.js",
      "/api/memories",
      `/api/memories?token=${"x".repeat(ui.token.length)}`,
    ]) {
      const reply = await request(ui, target);
      assert.equal(reply.status, 403, target);
      assert.doesNotMatch(reply.body, /real database/);
    }
    const first = await request(ui, `/?token=${ui.token}`);
    assert.equal(first.status, 302);
    assert.equal(first.headers.location, "/", "the token leaves the address bar");
    const setCookie = String(first.headers["set-cookie"]?.[0]);
    assert.match(setCookie, /HttpOnly/);
    assert.match(setCookie, /SameSite=Strict/);
    const cookie = setCookie.split(";")[0];
    const page = await request(ui, "/", { headers: { cookie } });
    assert.equal(page.status, 200);
    assert.match(String(page.headers["content-security-policy"]), /script-src 'self'/);
    const list = await request(ui, "/api/memories", { headers: { cookie } });
    assert.equal(list.status, 200);
    assert.equal(JSON.parse(list.body).items[0].file, "feedback-real-db.md");
    const forged = await request(ui, "/api/memories", { headers: { cookie: "memdir_ui=forged" } });
    assert.equal(forged.status, 403);
  });

  it("answers memory files only: the memory dir's own state (.git/config, the caches) is refused", async () => {
    const { home, memoryDir, env } = setup();
    fs.mkdirSync(path.join(memoryDir, ".git"), { recursive: true });
    fs.writeFileSync(path.join(memoryDir, ".git", "config"), "[remote]\n  url = secret-remote\n");
    fs.writeFileSync(path.join(memoryDir, "notes.txt"), "not a memory, private\n");
    const ui = await startUi(["--dir", memoryDir], { home, env });
    const cookie = await login(ui);
    for (const file of [".git/config", "notes.txt"]) {
      const reply = await request(ui, `/api/memory?file=${encodeURIComponent(file)}`, {
        headers: { cookie },
      });
      assert.equal(reply.status, 400, `${file}: ${reply.body}`);
      assert.doesNotMatch(reply.body, /secret-remote|private/);
    }
    const memory = await request(ui, "/api/memory?file=feedback-real-db.md", { headers: { cookie } });
    assert.equal(memory.status, 200, memory.body);
  });

  it("refuses a Host other than 127.0.0.1 and its port (DNS rebinding), even with the cookie", async () => {
    const { home, memoryDir, env } = setup();
    const ui = await startUi(["--dir", memoryDir], { home, env });
    const cookie = await login(ui);
    for (const host of [
      `evil.example:${ui.port}`,
      `localhost.evil.example:${ui.port}`,
      `127.0.0.1:${ui.port + 1}`,
      "127.0.0.1",
    ]) {
      const reply = await request(ui, `/api/memories?token=${ui.token}`, { headers: { host, cookie } });
      assert.equal(reply.status, 403, host);
      assert.doesNotMatch(reply.body, /real database/);
    }
  });

  it("refuses writes from a foreign Origin and changes nothing; the same write from the page's origin goes through", async () => {
    const { home, memoryDir, env } = setup();
    const ui = await startUi(["--dir", memoryDir], { home, env });
    const cookie = await login(ui);
    const file = path.join(memoryDir, "feedback-real-db.md");
    const before = fs.readFileSync(file, "utf8");
    const edit = {
      file: "feedback-real-db.md",
      type: "feedback",
      description: "login tests hit a real database, always",
      body: "Never mock it.",
      version: await versionOf(ui, cookie, "feedback-real-db.md"),
    };
    for (const origin of ["http://evil.example", "null", `http://localhost:${ui.port}`]) {
      const reply = await request(ui, "/api/memory/save", {
        method: "POST",
        headers: { cookie, origin },
        body: edit,
      });
      assert.equal(reply.status, 403, origin);
    }
    const crossSite = await request(ui, "/api/memory/delete", {
      method: "POST",
      headers: { cookie, origin: ui.origin, "sec-fetch-site": "cross-site" },
      body: { file: "feedback-real-db.md" },
    });
    assert.equal(crossSite.status, 403);
    assert.equal(fs.readFileSync(file, "utf8"), before, "nothing was written");
    const allowed = await request(ui, "/api/memory/save", {
      method: "POST",
      headers: { cookie, origin: ui.origin },
      body: edit,
    });
    assert.equal(allowed.status, 200, allowed.body);
    assert.match(fs.readFileSync(file, "utf8"), /always/);
    assert.match(fs.readFileSync(path.join(memoryDir, "MEMORY.md"), "utf8"), /real database, always/);
  });

  it("holds no lock while idle: another process saves while it runs, and the page sees the new memory", async () => {
    const { home, memoryDir, env } = setup();
    const ui = await startUi(["--dir", memoryDir], { home, env });
    const cookie = await login(ui);
    assert.equal((await request(ui, "/api/memories", { headers: { cookie } })).status, 200);
    assert.ok(!fs.existsSync(path.join(memoryDir, ".memdir-write.lock")), "no writer lock while idle");
    const added = await runCli(
      [
        "add",
        "Deploys leave on Fridays.",
        "--type",
        "project",
        "--description",
        "deploys happen on fridays",
        "--dir",
        memoryDir,
      ],
      { home, env, timeoutMs: 20_000 },
    );
    assert.equal(added.code, 0, added.stderr);
    const list = JSON.parse((await request(ui, "/api/memories", { headers: { cookie } })).body);
    assert.equal(list.total, 2);
    assert.ok(
      list.items.some((item: { description: string }) => item.description === "deploys happen on fridays"),
    );
  });

  it("expires inbox proposals past their days before listing them, as memdir inbox does, and says so in the history", async () => {
    const { home, memoryDir, env } = setup();
    const proposal = (id: string, daysAgo: number) =>
      saveProposal(memoryDir, {
        id,
        createdAt: new Date(Date.now() - daysAgo * 86_400_000).toISOString(),
        source: "extraction",
        summary: `remember ${id}`,
        changes: [
          {
            file: `project-${id}.md`,
            action: "add",
            before: null,
            after: memory(`the ${id} rule`, `Body of ${id}.`, "project"),
          },
        ],
      });
    await proposal("old", 40); // past the default 30 days
    await proposal("new", 1);
    const ui = await startUi(["--dir", memoryDir], { home, env });
    const cookie = await login(ui);
    const inbox = JSON.parse((await request(ui, "/api/inbox", { headers: { cookie } })).body) as {
      proposals: { id: string }[];
    };
    assert.deepEqual(
      inbox.proposals.map((p) => p.id),
      ["new"],
    );
    const history = JSON.parse(
      (await runCliInProcess(["history", "--json", "--dir", memoryDir], { home, env })).stdout,
    );
    assert.ok(
      history.entries.some(
        (e: { kind: string; message: string }) => e.kind === "expire" && e.message.includes("proposal old"),
      ),
      JSON.stringify(history.entries),
    );
  });

  it("opens only the memory directories under the root, and says why for any other path", async () => {
    const { home, root, memoryDir, env } = setup();
    writeTree(path.join(root, "projects", "-work-blog", "memory"), {
      "user-writer.md": memory("the user writes the blog in English", "", "user"),
    });
    const outside = makeTempDir();
    writeTree(outside, { "user-secret-plans.md": memory("plans nobody should list", "", "user") });
    const ui = await startUi(["--dir", memoryDir], { home, env });
    const cookie = await login(ui);
    const dirs = JSON.parse((await request(ui, "/api/dirs", { headers: { cookie } })).body);
    assert.equal(dirs.current, memoryDir);
    assert.deepEqual(
      dirs.dirs.map((dir: { memoryDir: string }) => dir.memoryDir),
      [memoryDir, path.join(root, "projects", "-work-blog", "memory")],
    );
    const other = await request(ui, `/api/memories?dir=${encodeURIComponent(dirs.dirs[1].memoryDir)}`, {
      headers: { cookie },
    });
    assert.equal(JSON.parse(other.body).items[0].file, "user-writer.md");
    const refused = await request(ui, `/api/memories?dir=${encodeURIComponent(outside)}`, {
      headers: { cookie },
    });
    assert.equal(refused.status, 400);
    assert.match(JSON.parse(refused.body).error.message, /not a memory directory under the root/);
  });

  it("--open hands the desktop's opener (xdg-open) a one-time code, never the token, and the code works once", async () => {
    const { home, memoryDir, env } = setup();
    const bin = path.join(home, "bin");
    const opened = path.join(home, "opened.txt");
    // The opener's whole command line, as `ps` shows it to every local user.
    writeTree(bin, { "xdg-open": `#!/bin/sh\nprintf '%s ' "$0" "$@" > ${JSON.stringify(opened)}\n` });
    fs.chmodSync(path.join(bin, "xdg-open"), 0o755);
    const ui = await startUi(["--dir", memoryDir, "--open"], {
      home,
      env: { ...env, PATH: `${bin}:${process.env.PATH ?? ""}` },
    });
    await waitFor(() => fs.existsSync(opened) && fs.readFileSync(opened, "utf8") !== "");
    const commandLine = fs.readFileSync(opened, "utf8");
    assert.ok(!commandLine.includes(ui.token), `no token on the opener's command line: ${commandLine}`);
    const url = new URL(commandLine.trim().split(" ").at(-1) ?? "");
    assert.equal(url.origin, ui.origin);
    const code = url.searchParams.get("code") ?? "";
    assert.ok(code.length >= 32, commandLine);
    // Spent on an API call it does not open anything (and is not spent).
    assert.equal((await request(ui, `/api/memories?code=${code}`)).status, 403);
    const first = await request(ui, `/?code=${code}`);
    assert.equal(first.status, 302, "the browser's first visit trades the code for the cookie");
    assert.equal(first.headers.location, "/");
    const cookie = String(first.headers["set-cookie"]?.[0]).split(";")[0];
    assert.equal((await request(ui, "/api/memories", { headers: { cookie } })).status, 200);
    const again = await request(ui, `/?code=${code}`);
    assert.equal(again.status, 403, "a second use of the code is refused");
    assert.equal(again.headers["set-cookie"], undefined);
  });

  it("refuses a save of a memory changed on disk since the page loaded it: 409 with both texts, nothing written", async () => {
    const { home, memoryDir, env } = setup();
    const ui = await startUi(["--dir", memoryDir], { home, env });
    const cookie = await login(ui);
    const file = path.join(memoryDir, "feedback-real-db.md");
    const loaded = await versionOf(ui, cookie, "feedback-real-db.md");
    // Edited in the user's editor after the page loaded it.
    fs.writeFileSync(file, memory("login tests hit a real database", "Edited in the CLI."));
    const onDisk = fs.readFileSync(file, "utf8");
    assert.match(onDisk, /Edited in the CLI/);
    const save = (version: string | undefined) =>
      request(ui, "/api/memory/save", {
        method: "POST",
        headers: { cookie, origin: ui.origin },
        body: {
          file: "feedback-real-db.md",
          type: "feedback",
          description: "login tests hit a real database",
          body: "Edited in the page.",
          version,
        },
      });
    const refused = await save(loaded);
    assert.equal(refused.status, 409, refused.body);
    const { error } = JSON.parse(refused.body) as {
      error: { code: string; current: { body: string; version: string }; yours: { body: string } };
    };
    assert.equal(error.code, "conflict");
    assert.match(error.current.body, /Edited in the CLI/);
    assert.equal(error.yours.body, "Edited in the page.");
    assert.equal(fs.readFileSync(file, "utf8"), onDisk, "the CLI's edit is kept");
    assert.equal((await save(undefined)).status, 400, "a save must name the version it edits");
    // The user chose theirs, having seen the disk's: saved over the version they saw.
    const kept = await save(error.current.version);
    assert.equal(kept.status, 200, kept.body);
    assert.match(fs.readFileSync(file, "utf8"), /Edited in the page/);
  });

  it("serves a memory's own address (/memory/<file>) as the app, behind the same checks; a token visit keeps the address", async () => {
    const { home, memoryDir, env } = setup();
    const ui = await startUi(["--dir", memoryDir], { home, env });
    const deep = "/memory/feedback-real-db.md";
    assert.equal((await request(ui, deep)).status, 403, "no cookie, no page");
    const first = await request(ui, `${deep}?token=${ui.token}`);
    assert.equal(first.status, 302);
    assert.equal(
      first.headers.location,
      deep,
      "the link still leads to the memory after the token is traded",
    );
    const cookie = String(first.headers["set-cookie"]?.[0]).split(";")[0];
    const page = await request(ui, deep, { headers: { cookie } });
    assert.equal(page.status, 200);
    assert.match(String(page.headers["content-type"]), /text\/html/);
    assert.match(page.body, /<main id="page"/);
    const foreignHost = await request(ui, deep, { headers: { cookie, host: `localhost:${ui.port}` } });
    assert.equal(foreignHost.status, 403);
    assert.equal((await request(ui, "/memoryx", { headers: { cookie } })).status, 404);
  });

  it("streams a change event after a memory file is written (/api/events), and refuses the stream without the cookie or with a foreign Host", async () => {
    const { home, memoryDir, env } = setup();
    const ui = await startUi(["--dir", memoryDir], { home, env });
    assert.equal((await request(ui, "/api/events")).status, 403, "no cookie");
    const cookie = await login(ui);
    assert.equal((await request(ui, "/api/events", { headers: { cookie, host: "evil.test" } })).status, 403);
    const events: { event: string; data: string }[] = [];
    const stream = await new Promise<http.IncomingMessage>((resolve, reject) => {
      http
        .get({ host: "127.0.0.1", port: ui.port, path: "/api/events", headers: { cookie } }, resolve)
        .on("error", reject);
    });
    assert.equal(stream.statusCode, 200);
    assert.match(String(stream.headers["content-type"]), /^text\/event-stream/);
    let buffer = "";
    stream.setEncoding("utf8").on("data", (chunk: string) => {
      buffer += chunk;
      for (let end = buffer.indexOf("\n\n"); end >= 0; end = buffer.indexOf("\n\n")) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const field = (name: string) =>
          block
            .split("\n")
            .find((line) => line.startsWith(`${name}: `))
            ?.slice(name.length + 2) ?? "";
        events.push({ event: field("event"), data: field("data") });
      }
    });
    try {
      await waitFor(() => events.some((e) => e.event === "ready"), { what: "the ready event" });
      writeTree(memoryDir, {
        "project-new.md": memory("a memory written by another process", "Body.", "project"),
      });
      await waitFor(
        () => events.some((e) => e.event === "change" && JSON.parse(e.data).file === "project-new.md"),
        {
          what: "a change event naming project-new.md",
        },
      );
    } finally {
      stream.destroy();
    }
  });

  it("tells a page about a memory written in a folder made after its stream opened, and shows the progress of a never-read dir's scan", async () => {
    const { home, root, memoryDir, env } = setup();
    const other = path.join(root, "projects", "-work-blog", "memory");
    const notes: Record<string, string> = {};
    for (let n = 0; n < 40; n++) notes[`reference-note-${n}.md`] = memory(`note ${n}`, "Body.", "reference");
    writeTree(other, notes);
    const ui = await startUi(["--dir", memoryDir], { home, env });
    const cookie = await login(ui);
    const start = await openEvents(ui, cookie);
    const blog = await openEvents(ui, cookie, other);
    try {
      await waitFor(() => start.events.some((e) => e.event === "ready"), { what: "the ready event" });
      writeTree(memoryDir, {
        "team/project-later.md": memory("written in a new folder", "Body.", "project"),
      });
      await waitFor(
        () =>
          start.events.some(
            (e) => e.event === "change" && JSON.parse(e.data).file === "team/project-later.md",
          ),
        { what: "a change event naming team/project-later.md" },
      );
      await waitFor(() => blog.events.some((e) => e.event === "ready"), {
        what: "the other dir's ready event",
      });
      const list = await request(ui, `/api/memories?${new URLSearchParams({ dir: other })}`, {
        headers: { cookie },
      });
      assert.equal(list.status, 200, list.body);
      await waitFor(
        () =>
          blog.events.some(
            (e) =>
              e.event === "progress" &&
              JSON.stringify(JSON.parse(e.data)) ===
                JSON.stringify({ step: "reading memory headers", done: 40, total: 40 }),
          ),
        { what: "the scan's progress, ended with its total" },
      );
      assert.ok(
        !start.events.some((e) => e.event === "progress" && JSON.parse(e.data).total === 40),
        "another dir's progress is not told to this one's pages",
      );
    } finally {
      start.stream.destroy();
      blog.stream.destroy();
    }
  });

  it("streams Health's findings one check at a time, MEMORY.md first and done last, the same findings as /api/health", async () => {
    const { home, memoryDir, env } = setup();
    writeTree(memoryDir, {
      "project-unlisted.md": memory("a memory without an index line", "Body.", "project"),
      "no-type.md": "---\ndescription: no type here\n---\nBody.\n",
    });
    const ui = await startUi(["--dir", memoryDir], { home, env });
    const cookie = await login(ui);
    const reply = await request(ui, "/api/health/stream", { headers: { cookie } });
    assert.equal(reply.status, 200, reply.body);
    assert.match(String(reply.headers["content-type"]), /^application\/x-ndjson/);
    const lines = reply.body
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    assert.ok("index" in lines[0], "MEMORY.md's size comes first");
    assert.deepEqual(lines.at(-1), { done: true });
    const checks = lines.filter((line) => "check" in line);
    assert.deepEqual(
      checks.filter((line) => line.done === line.total).map((line) => line.check),
      ["index", "memories", "files", "temp-files"],
    );
    const streamed = checks.flatMap((line) => line.issues as { code: string; file: string }[]);
    const whole = JSON.parse((await request(ui, "/api/health", { headers: { cookie } })).body) as {
      issues: { code: string; file: string }[];
    };
    const key = (issue: { code: string; file: string }) => `${issue.code} ${issue.file}`;
    assert.deepEqual(streamed.map(key).sort(), whole.issues.map(key).sort());
    assert.ok(
      streamed.some((issue) => issue.code === "missing-pointer" && issue.file === "project-unlisted.md"),
    );
    assert.equal((await request(ui, "/api/health/stream")).status, 403, "no cookie, no findings");
  });

  it("answers a memory with its links, backlinks, anchors and provenance, its history, and the overview's counts", async () => {
    const { home, memoryDir, env } = setup();
    writeTree(memoryDir, {
      "project-login.md": `---\ndescription: the login flow\ntype: project\nsource: agent\nsession: sess-42\nanchors:\n  - path: src/auth/login.ts\n    hash: 0123456789ab\n---\nSee [[feedback-real-db]] and [[not-written-yet]].\n`,
    });
    const ui = await startUi(["--dir", memoryDir], { home, env });
    const cookie = await login(ui);
    const get = async (target: string) => {
      const reply = await request(ui, target, { headers: { cookie } });
      assert.equal(reply.status, 200, reply.body);
      return JSON.parse(reply.body);
    };
    const login_ = await get("/api/memory?file=project-login.md");
    assert.equal(login_.source, "agent");
    assert.equal(login_.session, "sess-42");
    assert.deepEqual(login_.anchors, [{ path: "src/auth/login.ts", hash: "0123456789ab" }]);
    assert.deepEqual(login_.links, [
      {
        name: "feedback-real-db",
        file: "feedback-real-db.md",
        description: "login tests hit a real database",
      },
      { name: "not-written-yet", file: null, description: null },
    ]);
    const target = await get("/api/memory?file=feedback-real-db.md");
    assert.deepEqual(target.backlinks, [{ file: "project-login.md", description: "the login flow" }]);
    const anchored = await get("/api/memories?anchor=auth/login");
    assert.deepEqual(
      anchored.items.map((item: { file: string }) => item.file),
      ["project-login.md"],
    );
    assert.deepEqual(anchored.items[0].anchors, ["src/auth/login.ts"]);
    const future = await get(`/api/memories?since=${new Date(Date.now() + 86_400_000).toISOString()}`);
    assert.equal(future.total, 0, "nothing is saved after tomorrow");
    const bad = await request(ui, "/api/memories?since=yesterday-ish", { headers: { cookie } });
    assert.equal(bad.status, 400);
    assert.match(bad.body, /since/);

    // One save from the page, then the memory's history holds it, and the other memory's does not.
    const version = await versionOf(ui, cookie, "project-login.md");
    const saved = await request(ui, "/api/memory/save", {
      method: "POST",
      headers: { cookie, origin: ui.origin },
      body: {
        file: "project-login.md",
        type: "project",
        description: "the login flow, step by step",
        body: "Steps.",
        version,
      },
    });
    assert.equal(saved.status, 200, saved.body);
    const own = await get("/api/history?file=project-login.md");
    type Entry = { message: string; changes: { file: string }[] };
    assert.equal(own.entries[0].message, "ui: edited project-login.md");
    assert.ok(own.entries.every((entry: Entry) => entry.changes.some((c) => c.file === "project-login.md")));
    const other = await get("/api/history?file=feedback-real-db.md");
    assert.ok(!other.entries.some((entry: Entry) => entry.message === "ui: edited project-login.md"));
    assert.deepEqual(own.provenance["project-login.md"], { source: "agent", session: "sess-42" });

    const overview = await get("/api/overview");
    assert.equal(overview.total, 2);
    assert.deepEqual(overview.byType, { feedback: 1, project: 1 });
    assert.deepEqual(
      overview.sources.map((entry: { source: string | null }) => entry.source).sort(),
      ["agent", null].sort(),
    );
    assert.equal(overview.inbox, 0);
    assert.equal(overview.recall, null, "no recall activity is recorded");
    const periods = overview.timeline.periods as { counts: Record<string, number> }[];
    assert.equal(
      periods.reduce((sum, period) => sum + Object.values(period.counts).reduce((a, b) => a + b, 0), 0),
      2,
    );
  });

  it("says a --port in use is in use, and what to do, leaving no signal handler behind", async () => {
    const { home, memoryDir, env } = setup();
    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    const { port } = taken.address() as net.AddressInfo;
    const handlers = process.listenerCount("SIGINT");
    try {
      const result = await runCliInProcess(["ui", "--port", String(port), "--dir", memoryDir], { home, env });
      assert.equal(result.code, 1);
      assert.match(
        result.stderr,
        new RegExp(`^memdir: ui: port ${port} on 127\\.0\\.0\\.1 is in use .*--port`, "m"),
      );
      assert.equal(process.listenerCount("SIGINT"), handlers);
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });

  it("rejects a bad --port with a usage error", async () => {
    const { home, memoryDir, env } = setup();
    const result = await runCliInProcess(["ui", "--port", "70000", "--dir", memoryDir], { home, env });
    assert.equal(result.code, 2);
    assert.match(result.stderr, /--port must be a whole number/);
  });
});
