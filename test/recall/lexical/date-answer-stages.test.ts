import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { HeaderCache } from "../../../src/memdir/scan/header-cache.ts";
import { scanHeaders } from "../../../src/memdir/scan/scan.ts";
import { LexicalIndexCache } from "../../../src/recall/lexical/index/lexical-index.ts";
import type { LexicalPick, LexicalTuning } from "../../../src/recall/lexical/index/types.ts";
import { createLexicalSelector } from "../../../src/recall/select-lexical.ts";
import { makeTempDir } from "../../helpers/temp.ts";

// The date stage and the answer-after-the-question stage: each test builds a memory dir of one
// memory per exchange (saved times in `modified`) and shows the ranking with the stage on and off.

interface Exchange {
  file: string;
  description: string;
  body: string;
  /** Local time, e.g. "2023-05-04T10:00" (read as local time, as the query's dates are). */
  saved: string;
}

function makeDir(exchanges: readonly Exchange[]): string {
  const dir = makeTempDir("memdir-date-answer-");
  for (const exchange of exchanges) {
    const modified = new Date(exchange.saved).toISOString();
    fs.writeFileSync(
      path.join(dir, exchange.file),
      `---\ndescription: ${exchange.description}\ntype: user\nmodified: ${modified}\n---\n${exchange.body}\n`,
    );
  }
  return dir;
}

async function select(
  dir: string,
  query: string,
  asked: string,
  tuning: Partial<LexicalTuning> = {},
  k = 5,
): Promise<LexicalPick[]> {
  const headers = await scanHeaders(dir, { cache: new HeaderCache() });
  const selector = createLexicalSelector({ cache: new LexicalIndexCache(), tuning, wordVectors: null });
  const request = { query, headers, k, memoryDir: dir, now: new Date(asked).getTime() };
  return (await selector.select(request)).picks as LexicalPick[];
}

const files = (picks: readonly LexicalPick[]) => picks.map((pick) => pick.file);

describe("the date stage", () => {
  const books = [
    {
      file: "reading-may-1.md",
      description: "Reading a book about the history of tea",
      body: "User: I'm reading a book about the history of tea, a great book to read slowly.",
      saved: "2023-05-01T20:00",
    },
    {
      file: "reading-may-6.md",
      description: "Finished Project Hail Mary",
      body: "User: Finished the book Project Hail Mary today.",
      saved: "2023-05-06T21:00",
    },
    {
      file: "cooking-may-9.md",
      description: "Cooked dumplings",
      body: "User: Cooked dumplings for dinner with my sister.",
      saved: "2023-05-09T19:00",
    },
  ];

  it("puts the memory saved on the day the question names first, and says so in the reason", async () => {
    const dir = makeDir(books);
    const asked = "2023-05-10T12:00";
    const picks = await select(dir, "What book did I read on May 6th?", asked);
    assert.equal(picks[0]?.file, "reading-may-6.md");
    assert.match(picks[0]?.reason ?? "", /date: 05-06 \(saved that day\)/);
    // Off, the better-worded memory of another day wins.
    const off = await select(dir, "What book did I read on May 6th?", asked, { dateWeight: 0 });
    assert.equal(off[0]?.file, "reading-may-1.md");
  });

  it("resolves a relative date against the question's time", async () => {
    const dir = makeDir(books);
    const picks = await select(dir, "Which book did I finish four days ago?", "2023-05-10T12:00");
    assert.equal(picks[0]?.file, "reading-may-6.md");
    assert.match(picks[0]?.reason ?? "", /date: 2023-05-06 \(saved that day\)/);
    // Asked a week later, the same words point at no saved day, and the ranking is the plain one.
    const later = await select(dir, "Which book did I finish four days ago?", "2023-05-17T12:00");
    const withoutDates = await select(dir, "Which book did I finish?", "2023-05-17T12:00");
    assert.deepEqual(files(later), files(withoutDates));
  });

  it("reads a date written in a memory's name", async () => {
    const dir = makeDir([
      {
        file: "2023-05-06-book-club.md",
        description: "Book club notes",
        body: "We talked about a book.",
        saved: "2023-05-20T09:00",
      },
      {
        file: "book-wishlist.md",
        description: "Books I want",
        body: "A book list: book after book to read.",
        saved: "2023-05-20T09:00",
      },
    ]);
    const picks = await select(dir, "what did the book club say on May 6?", "2023-05-21T12:00");
    assert.equal(picks[0]?.file, "2023-05-06-book-club.md");
    assert.match(picks[0]?.reason ?? "", /date: 05-06 \(dated that day in its name\)/);
  });

  it("ranks a question without a date exactly as with the stage off", async () => {
    const dir = makeDir(books);
    const on = await select(dir, "What book did I read?", "2023-05-10T12:00");
    const off = await select(dir, "What book did I read?", "2023-05-10T12:00", { dateWeight: 0 });
    assert.deepEqual(on, off);
  });

  it("finds Chinese dates: 5月4号 and 昨天", async () => {
    const dir = makeDir([
      {
        file: "tea-may-3.md",
        description: "买了很多龙井茶和茶具",
        body: "用户：今天买了很多龙井茶，还有一套茶具，茶很香。",
        saved: "2023-05-03T15:00",
      },
      {
        file: "tea-may-4.md",
        description: "朋友送了茶",
        body: "用户：朋友送了一盒普洱茶。",
        saved: "2023-05-04T15:00",
      },
      {
        file: "tea-may-9.md",
        description: "喝了乌龙茶",
        body: "用户：下午喝了乌龙茶。",
        saved: "2023-05-09T15:00",
      },
    ]);
    const named = await select(dir, "5月4号朋友送了我什么茶？", "2023-05-10T12:00");
    assert.equal(named[0]?.file, "tea-may-4.md");
    const yesterday = await select(dir, "我昨天喝了什么茶？", "2023-05-10T12:00");
    assert.equal(yesterday[0]?.file, "tea-may-9.md");
    assert.match(yesterday[0]?.reason ?? "", /date: 2023-05-09 \(saved that day\)/);
  });
});

describe("the answer after the question", () => {
  const gift = (extra: Exchange[] = []) =>
    makeDir([
      {
        file: "gift-question.md",
        description: "我想请教你送朋友什么礼物",
        body: "用户：下周是朋友的生日，我想请教你送朋友什么礼物？\n助手：她平时喜欢做什么？",
        saved: "2023-05-04T10:00",
      },
      {
        file: "gift-answer.md",
        description: "她喜欢读书和喝茶",
        body: "用户：她喜欢读书和喝茶。\n助手：推荐一套青瓷茶具，再配一本《小王子》。",
        saved: "2023-05-04T10:03",
      },
      {
        file: "birthday-cake.md",
        description: "订了生日蛋糕",
        body: "用户：给自己订了一个生日蛋糕。",
        saved: "2023-04-20T10:00",
      },
      ...extra,
    ]);

  it("recalls the exchange saved right after a matching question, below it", async () => {
    const dir = gift();
    const picks = await select(dir, "我向你请教过送朋友什么礼物，结果呢？", "2023-05-20T12:00");
    assert.deepEqual(files(picks).slice(0, 2), ["gift-question.md", "gift-answer.md"]);
    assert.match(picks[1]?.reason ?? "", /answer after gift-question\.md/);
    const off = await select(dir, "我向你请教过送朋友什么礼物，结果呢？", "2023-05-20T12:00", {
      answerWeight: 0,
    });
    assert.ok(!files(off).includes("gift-answer.md"), `off: ${files(off)}`);
  });

  it("does the same in English", async () => {
    const dir = makeDir([
      {
        file: "ask.md",
        description: "Can you suggest a graduation gift for my sister?",
        body: "User: can you suggest a graduation gift for my sister?",
        saved: "2023-06-03T10:00",
      },
      {
        file: "answer.md",
        description: "She's into photography",
        body: "User: she's into photography.\nAssistant: a compact film camera.",
        saved: "2023-06-03T10:04",
      },
      {
        file: "other.md",
        description: "My sister's wedding",
        body: "User: my sister's wedding is in July.",
        saved: "2023-05-01T10:00",
      },
    ]);
    const picks = await select(
      dir,
      "What graduation gift did you suggest for my sister?",
      "2023-06-21T12:00",
    );
    assert.ok(files(picks).includes("answer.md"), `picks: ${files(picks)}`);
  });

  it("pulls in no neighbor of a memory that asks nothing", async () => {
    const dir = makeDir([
      {
        file: "gift-given.md",
        description: "送了朋友一条围巾当礼物",
        body: "用户：昨天送了朋友一条围巾当礼物。",
        saved: "2023-05-04T10:00",
      },
      {
        file: "dentist.md",
        description: "牙医预约改了",
        body: "用户：牙医预约改到周三。",
        saved: "2023-05-04T10:02",
      },
    ]);
    const picks = await select(dir, "我送了朋友什么礼物？", "2023-05-20T12:00");
    assert.deepEqual(files(picks), ["gift-given.md"]);
  });

  it("reads a coding memory's title as no question: its neighbor saved a minute later is not pulled in", async () => {
    // Memories a user saved one after another in one sitting, titled as notes are.
    const dir = makeDir([
      {
        file: "reference-dashboards.md",
        description: "Where to look for production errors, the Grafana dashboards and PagerDuty",
        body: "Production errors show on the Grafana dashboards (grafana.internal/d/errors); PagerDuty pages on-call.",
        saved: "2026-12-01T10:00:00",
      },
      {
        file: "feedback-no-db-mocks.md",
        description: "Never mock the database in integration tests",
        body: "Integration tests run against a real Postgres in docker; mocks hid a broken migration once.",
        saved: "2026-12-01T10:00:40",
      },
      {
        file: "project-deploys.md",
        description: "How we deploy, tags on main and ArgoCD syncs",
        body: "A tag on main builds the image; ArgoCD syncs it to prod.",
        saved: "2026-12-01T10:01:10",
      },
    ]);
    const dashboards = await select(dir, "where are the dashboards?", "2026-12-02T12:00");
    assert.deepEqual(files(dashboards), ["reference-dashboards.md"]);
    const deploys = await select(dir, "how do we deploy?", "2026-12-02T12:00");
    assert.ok(!files(deploys).includes("reference-dashboards.md"), `deploys: ${files(deploys)}`);
    // Asked as a question, the same kind of memory still passes its score on.
    const asked = makeDir([
      {
        file: "ask.md",
        description: "Where should the dashboards for the payments service live?",
        body: "User: where should the dashboards for the payments service live?",
        saved: "2026-12-01T10:00:00",
      },
      {
        file: "reply.md",
        description: "In the shared Grafana folder",
        body: "Assistant: in the shared Grafana folder, one per service.",
        saved: "2026-12-01T10:01:00",
      },
    ]);
    const picks = await select(asked, "where should the payments dashboards live", "2026-12-02T12:00");
    assert.ok(files(picks).includes("reply.md"), `picks: ${files(picks)}`);
  });

  it("pulls in no exchange saved after a pause, nor one of a burst", async () => {
    const later = gift([]);
    // The answer moved two hours after the question: another conversation.
    const answer = path.join(later, "gift-answer.md");
    fs.writeFileSync(
      answer,
      fs
        .readFileSync(answer, "utf8")
        .replace(/modified: .*/, `modified: ${new Date("2023-05-04T12:00").toISOString()}`),
    );
    const picks = await select(later, "我向你请教过送朋友什么礼物，结果呢？", "2023-05-20T12:00");
    assert.ok(!files(picks).includes("gift-answer.md"), `after a pause: ${files(picks)}`);

    const burst = gift([
      {
        file: "burst-twin.md",
        description: "周末计划",
        body: "用户：周末去爬山。",
        saved: "2023-05-04T10:03",
      },
    ]);
    const burstPicks = await select(burst, "我向你请教过送朋友什么礼物，结果呢？", "2023-05-20T12:00");
    assert.ok(!files(burstPicks).includes("burst-twin.md"), `a burst: ${files(burstPicks)}`);
  });
});
