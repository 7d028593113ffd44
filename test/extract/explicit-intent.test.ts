import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseExplicitMemory } from "../../src/extract/explicit-intent.ts";
import { classifyStatement } from "../../src/extract/statement-type.ts";

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

describe("parseExplicitMemory, sentence by sentence", () => {
  it("forgets only when the request names something said or saved before", () => {
    // Everyday prompts that open with forget, 忘记 or 删除 name nothing said before.
    for (const message of [
      "forget it, let's use yarn instead",
      "Forget the tests for now, just get the build passing",
      "forget the previous approach and use a queue instead",
      "忘记密码页面有 bug，修一下",
      "忘记加索引了，帮我加一个 migration",
      "忘了提交 lockfile，帮我补上",
      "删除 login 页面上没用的 console.log",
      "删除 users 表里的测试数据",
      "把这行注释删掉",
      "把 console.log 都去掉",
      "把 pnpm 那条先忘掉，这次用 npm",
      "forget it",
    ])
      assert.equal(parseExplicitMemory(message), null, message);
    for (const [message, query] of [
      ["forget that I prefer tabs", "I prefer tabs"],
      ["forget that staging is on port 5433", "staging is on port 5433"],
      ["forget what I said about the staging DB", "what I said about the staging DB"],
      ["forget the memory about the old deploy script", "the memory about the old deploy script"],
      ["忘掉关于 Redis 缓存的记忆", "关于 Redis 缓存的记忆"],
      ["忘记：周五发布那条", "周五发布那条"],
      ["删除关于 staging 数据库的记忆", "关于 staging 数据库的记忆"],
      ["把 pnpm 那条记忆删掉", "pnpm 那条记忆"],
      ["请把我之前说的 Node 18 那条忘掉", "我之前说的 Node 18 那条"],
      ["把用 Jest 那条忘了，我们现在用 Vitest", "用 Jest 那条"],
    ])
      assert.deepEqual(parseExplicitMemory(message), { kind: "forget", query }, message);
  });

  it("deletes nothing on a forget that holds only for now, in English, Chinese and Japanese", () => {
    for (const message of [
      "forget about the tests for the moment",
      "Forget about perf for the time being. Correctness first.",
      "forget about the flaky e2e suite temporarily",
      "forget about the migration until tomorrow",
      "ok, forget about i18n just for now",
      "忘掉 pnpm 那条，暂时用 npm",
      "忘掉关于测试的那条，先把构建跑通",
      "テストのことは一旦忘れて",
      "pnpm のルールはとりあえず忘れて",
    ])
      assert.equal(parseExplicitMemory(message), null, message);
    // A "that" clause, a reason, "moment.js", 现在 and 今は are no "for now"; the reason is no
    // part of the query.
    for (const [message, query] of [
      ["forget that we use Jest; we moved to Vitest", "we use Jest"],
      ["forget the moment.js rule", "the moment.js rule"],
      ["Forget the note about the old deploy script, it's gone", "the note about the old deploy script"],
      ["忘掉我之前说的部署时间，现在改了", "我之前说的部署时间"],
      ["今は yarn を使っているので pnpm のことは忘れて", "pnpm"],
      ["忘记：暂时用 npm 那条", "暂时用 npm 那条"],
    ])
      assert.deepEqual(parseExplicitMemory(message), { kind: "forget", query }, message);
  });

  it("forgets a saved thing named with the reason it is wrong, and looks it up without the reason", () => {
    for (const [message, query] of [
      ["forget the pnpm rule, we use yarn now", "the pnpm rule"],
      ["forget the memory about Jest; we moved to Vitest", "the memory about Jest"],
      ["forget my preference for tabs, I use spaces now", "my preference for tabs"],
      ["forget the note about Node 18 — we're on Node 20 now", "the note about Node 18"],
      ["forget the pnpm rule because we use yarn now", "the pnpm rule"],
      ["forget the pnpm rule, use yarn from now on", "the pnpm rule"],
      ["Forget the pnpm rule. We use yarn now.", "the pnpm rule"],
      ["forget: the pnpm rule, we use yarn now", "the pnpm rule"],
      ["forget what I said about tabs, I use spaces now", "what I said about tabs"],
      // "about X" with a switch for good after it ("we use …", "we switched to …") is a reason too.
      ["forget about docker, we use podman now", "docker"],
      ["forget the memory about Node 18 and Node 16", "the memory about Node 18 and Node 16"],
      ["忘掉 pnpm 那条，我们现在用 yarn 了", "pnpm 那条"],
      ["忘掉关于 Jest 的记忆，我们已经换成 Vitest 了", "关于 Jest 的记忆"],
      ["忘记我说过的部署时间，以后改成周四", "我说过的部署时间"],
      ["pnpm のルールは忘れて、今は yarn を使ってる", "pnpm のルール"],
      ["Jest のメモは忘れて、もう Vitest に移行した", "Jest のメモ"],
    ])
      assert.deepEqual(parseExplicitMemory(message), { kind: "forget", query }, message);
  });

  it("deletes nothing when what follows a forget is this task's plan, in the sentence or the next", () => {
    for (const message of [
      "forget the pnpm rule, just use npm for this one",
      "forget the pnpm rule, use npm instead for this PR",
      "forget the pnpm rule, we're using npm for this task",
      "forget the pnpm rule, then run yarn install",
      "forget the memory about Node 18 and use Node 20 instead",
      "forget the lint rule for this file",
      "forget the eslint rule, we'll disable it in this PR",
      "forget the rule about snapshots, you can update them here",
      "forget what I said, let's keep it",
      "Forget about the redis cache. Just use an in-memory map.",
      "Forget the pnpm rule. Use npm for this one.",
      // "about X" is how a change of plan is said: a we/I clause after it stays one.
      "forget about the redis cache, I changed my mind",
      "忘掉 pnpm 那条，直接用 npm 吧",
      "忘掉 pnpm 那条，你直接用 npm",
      "忘掉那条规则，这次用 npm 就行",
      "pnpm のルールは忘れて、今回は npm でお願い",
      "pnpm のことは忘れて、yarn でやって",
      "テストのことは忘れて、ビルドを直して",
      "Jest のことは忘れて。Vitest で書いて。",
    ])
      assert.equal(parseExplicitMemory(message), null, message);
    // A "… 忘れて、" that asks nothing of memory may still end in a request to remember.
    assert.equal(parseExplicitMemory("pnpm のことは忘れて、yarn を使うことを覚えておいて")?.kind, "remember");
  });

  it("saves nothing when remember, with a comma or bare, reports a problem that is back", () => {
    for (const message of [
      "Remember, the flaky test is failing again",
      "remember, the build is broken again",
      "Remember, CI keeps timing out on the e2e job",
      "Remember, the test suite still fails on Windows",
      "Remember, the login bug is back",
      "remember the login bug is back",
      "don't forget, the nightly build is failing again",
      "记住，CI 又红了",
      "覚えておいて、CI がまた落ちてる",
    ])
      assert.equal(parseExplicitMemory(message), null, message);
    // A colon, a rule, a condition and a state ("back on") stay requests.
    for (const [message, statement] of [
      ["Remember: we deploy on Fridays", "we deploy on Fridays"],
      ["Remember: the flaky test is failing again", "the flaky test is failing again"],
      ["Remember, never retry flaky tests again", "never retry flaky tests again"],
      [
        "Remember, if the e2e suite is failing again, rerun it once before you debug",
        "if the e2e suite is failing again, rerun it once before you debug",
      ],
      [
        "Remember, staging is back on Node 18 since the rollback",
        "staging is back on Node 18 since the rollback",
      ],
      ["remember the staging DB is back on port 5433", "the staging DB is back on port 5433"],
      ["Remember, we're using pnpm again", "we're using pnpm again"],
      ["记住，测试又挂了的话先看日志", "测试又挂了的话先看日志"],
      ["覚えておいて、CI が落ちたら再実行しないで", "CI が落ちたら再実行しないで"],
    ]) {
      const intent = parseExplicitMemory(message);
      assert.equal(intent?.kind === "remember" ? intent.statement : null, statement, message);
    }
  });

  it("saves nothing when remember is a bare report that something is broken now, and keeps when or why", () => {
    for (const message of [
      "Remember, the build is broken",
      "remember the staging DB is down right now",
      "Remember that CI is red on main.",
      "remember, the checkout page's not working",
    ])
      assert.equal(parseExplicitMemory(message), null, message);
    for (const [message, statement] of [
      ["Remember, staging is down on Sundays for backups", "staging is down on Sundays for backups"],
      [
        "Remember, the build is broken on Windows unless you set LONGPATHS",
        "the build is broken on Windows unless you set LONGPATHS",
      ],
      ["Remember, the e2e suite is flaky", "the e2e suite is flaky"],
      ["Remember: the build is broken", "the build is broken"],
    ]) {
      const intent = parseExplicitMemory(message);
      assert.equal(intent?.kind === "remember" ? intent.statement : null, statement, message);
    }
  });

  it("reads a request said after the statement (…，记住了), 别忘了 with a separator, and the thing about … as said before", () => {
    for (const [message, statement] of [
      ["以后提交信息用中文写，记住了", "以后提交信息用中文写"],
      ["接口统一返回 snake_case，你记好", "接口统一返回 snake_case"],
      ["别忘了：测试要连真实数据库", "测试要连真实数据库"],
      ["不要忘了，每次发版前跑 e2e", "每次发版前跑 e2e"],
      ["レビューは必ず2人以上、覚えておいてね", "レビューは必ず2人以上"],
    ]) {
      const intent = parseExplicitMemory(message);
      assert.equal(intent?.kind === "remember" ? intent.statement : null, statement, message);
    }
    for (const message of ["好的，我记住了", "密码，记住了吗？", "别忘了提交代码", "我记住了，谢谢"])
      assert.equal(parseExplicitMemory(message), null, message);
    for (const message of [
      "forget the thing about port 3000, it's 8080 now",
      "forget the stuff about redis, we dropped it",
      "forget the one about Jest",
    ])
      assert.equal(parseExplicitMemory(message)?.kind, "forget", message);
    for (const message of [
      "forget the part about caching, I'll handle it",
      "forget the thing about the tests for now",
    ])
      assert.equal(parseExplicitMemory(message), null, message);
  });

  it("reads a that-statement with a plural subject as a forget, and 不用记 … 了 as one", () => {
    for (const [message, query] of [
      ["forget that deploys go out on Fridays", "deploys go out on Fridays"],
      [
        "Forget that integration tests hit the real database, we mock it now.",
        "integration tests hit the real database",
      ],
      ["forget about pnpm, we use yarn now", "pnpm"],
      ["Forget about Jest, we switched to Vitest last month.", "Jest"],
      ["不用记 pnpm 了，我们现在用 yarn", "pnpm"],
      ["别再记着用 Jest 了", "用 Jest"],
    ]) {
      const intent = parseExplicitMemory(message);
      assert.equal(intent?.kind === "forget" ? intent.query : null, query, message);
    }
    for (const message of [
      "forget that tests folder, it's generated",
      "forget that test run, it was noise",
      "forget about the flaky test, I moved it to the quarantine folder",
      "forget about the cache, we're on a deadline",
      "不用记录日志了，直接打印",
      "不用记 pnpm 了，这次先用 npm",
      "你不用记这个了",
      "不用记笔记了",
    ])
      assert.equal(parseExplicitMemory(message), null, message);
  });

  it("saves nothing when remember that is a bare report of a problem that is back, and keeps one that goes on", () => {
    for (const message of [
      "Remember that the login bug is back",
      "remember that CI is failing again on main",
      "Remember that the checkout test keeps timing out.",
    ])
      assert.equal(parseExplicitMemory(message), null, message);
    for (const [message, statement] of [
      [
        "Remember that the e2e suite keeps timing out when run in parallel, so we run it serially",
        "the e2e suite keeps timing out when run in parallel, so we run it serially",
      ],
      ["Remember that the staging DB is back on Postgres 15", "the staging DB is back on Postgres 15"],
      [
        "Remember that the flaky test came back after we dropped the retry",
        "the flaky test came back after we dropped the retry",
      ],
    ]) {
      const intent = parseExplicitMemory(message);
      assert.equal(intent?.kind === "remember" ? intent.statement : null, statement, message);
    }
  });

  it("saves nothing from feature requests that open with remember, 记住 or note down", () => {
    for (const message of [
      "remember the user's last filter selection in localStorage",
      "remember the scroll position when navigating back",
      "Remember the selected tab across page reloads using the URL hash",
      "记住密码的勾选框没生效，帮我看一下",
      "记住我功能坏了，修一下",
      "Note down the steps you took in NOTES.md",
      "remember me checkbox is broken",
    ])
      assert.equal(parseExplicitMemory(message), null, message);
  });

  it("saves a bare remember of a fact about the project: the … is, lives, must …", () => {
    for (const [message, statement] of [
      ["remember the staging DB is at 10.0.0.5", "the staging DB is at 10.0.0.5"],
      ["Remember the deploy key lives in 1Password", "the deploy key lives in 1Password"],
      ["remember the tests must pass before merging", "the tests must pass before merging"],
    ]) {
      const intent = parseExplicitMemory(message);
      assert.equal(intent?.kind, "remember", message);
      assert.equal(intent?.kind === "remember" ? intent.statement : null, statement, message);
    }
  });

  it("asks nothing in complaints, code talk, changes of plan, feature requests and a task's constraints", () => {
    for (const message of [
      "你忘了我说过要用 pnpm",
      "你忘了我之前说的，测试不要 mock 数据库",
      "删掉这条注释",
      "删除这条测试，它一直不稳定",
      "删除那条日志输出",
      "Forget about the redis cache, just use an in-memory map for this test.",
      "Remember the selected filter when the page is reloaded",
      "Remember the scroll position so the user can go back",
      "Don't forget the semicolon on line 12",
      "记下每次请求的耗时",
      "Keep in mind that the user may be offline when this handler runs. Implement retries.",
    ])
      assert.equal(parseExplicitMemory(message), null, message);
  });

  it("keeps a rule said right after the request (always, never, 不要 …), and nothing after it", () => {
    for (const [message, statement] of [
      ["Remember that we use pnpm. Never npm. Now install lodash.", "we use pnpm. Never npm."],
      [
        "remember: always squash merge. Don't rebase shared branches. Fix the test.",
        "always squash merge. Don't rebase shared branches.",
      ],
      ["记住：我们用 pnpm。不要用 npm。帮我装一下 lodash。", "我们用 pnpm。不要用 npm。"],
    ]) {
      const intent = parseExplicitMemory(message);
      assert.equal(intent?.kind === "remember" ? intent.statement : null, statement, message);
    }
  });

  it("keeps a sentence whole across i.e. and e.g.", () => {
    const intent = parseExplicitMemory("Remember that we use pnpm, i.e. not npm or yarn.");
    assert.equal(intent?.kind === "remember" ? intent.statement : null, "we use pnpm, i.e. not npm or yarn.");
  });

  it("saves the request's own sentence, not the ones after it", () => {
    assert.deepEqual(
      parseExplicitMemory(
        "Remember that the build uses Node 20.\nNow bump the version in package.json and open a PR.",
      ),
      { kind: "remember", statement: "the build uses Node 20.", type: "project" },
    );
    assert.deepEqual(parseExplicitMemory("记住，我们每周四发版。现在帮我写 changelog"), {
      kind: "remember",
      statement: "我们每周四发版。",
      type: "project",
    });
    // A list under "remember:" is its statement.
    assert.deepEqual(parseExplicitMemory("remember:\n- use pnpm\n- never mock the database"), {
      kind: "remember",
      statement: "- use pnpm\n- never mock the database",
      type: "feedback",
    });
  });

  it("saves nothing when the remember sentence is a question or recounts the conversation", () => {
    for (const message of [
      "Remember that bug from yesterday? It's back, can you look at the stack trace",
      "Remember, we talked about this yesterday. Fix the login test",
      "Here's the log:\n```\nremember: cache warmed for tenant 42\n```\nwhy does the next request still miss?",
      "> remember: the config lives in /etc/app\nThis is what the README says, is it still true?",
    ])
      assert.equal(parseExplicitMemory(message), null, message);
  });

  it("saves nothing when remember that … points back at something past, question mark or not", () => {
    for (const message of [
      "Remember that bug from yesterday, it's back",
      "remember that flaky checkout test, it's failing again on main",
      "Remember that CORS error from last week — it's happening again on staging",
      "remember that migration we ran last sprint, we need to roll it back",
      "Remember that race condition in the uploader. It's back.",
      "remember the memory leak from Monday, it is back after the last deploy",
      "记得昨天那个 bug 吗，又出现了",
      "你还记得那个 flaky 的测试吗？又挂了",
      "先週のタイムアウトの件、覚えてるよね。また起きてる",
    ])
      assert.equal(parseExplicitMemory(message), null, message);
    // A statement after "that" (the, we, a stating verb), a time that is not a thing's, a rule
    // about the thing and another task's "again" stay requests.
    for (const [message, statement] of [
      [
        "Remember that the payments service is back on Node 18 since yesterday",
        "the payments service is back on Node 18 since yesterday",
      ],
      ["remember that we deploy on Fridays", "we deploy on Fridays"],
      [
        "Remember that staging deploys on every merge, it's automatic.",
        "staging deploys on every merge, it's automatic.",
      ],
      [
        "Remember that flaky tests must be quarantined, not retried.",
        "flaky tests must be quarantined, not retried.",
      ],
      ["remember that prod moved to us-east-2 last week", "prod moved to us-east-2 last week"],
      ["Remember that flaky test, never retry it again", "flaky test, never retry it again"],
      ["Remember that staging deploys on merge. Run the tests again.", "staging deploys on merge."],
      ["记住：那个 bug 是时区导致的，以后日期都用 UTC", "那个 bug 是时区导致的，以后日期都用 UTC"],
      ["昨日のバグは TZ が原因だったことを覚えておいて", "昨日のバグは TZ が原因だった"],
    ]) {
      const intent = parseExplicitMemory(message);
      assert.equal(intent?.kind === "remember" ? intent.statement : null, statement, message);
    }
  });

  it("finds a request after other sentences, before a question, in traditional Chinese and Japanese", () => {
    for (const [message, statement] of [
      ["Thanks, that worked. Remember that staging uses port 5433.", "staging uses port 5433."],
      ["修好了。记住：集成测试不要 mock 数据库", "集成测试不要 mock 数据库"],
      ["Please remember that we use pnpm. Can you install lodash?", "we use pnpm."],
      ["請記住：我們用 pnpm", "我們用 pnpm"],
      ["请帮我记住：生产环境在 us-east-1", "生产环境在 us-east-1"],
      ["忘れないで：テストを実行してからコミット", "テストを実行してからコミット"],
      ["これを覚えておいて：API のタイムアウトは 30 秒", "API のタイムアウトは 30 秒"],
    ])
      assert.deepEqual(
        parseExplicitMemory(message),
        { kind: "remember", statement, type: classifyStatement(statement) },
        message,
      );
  });
});
