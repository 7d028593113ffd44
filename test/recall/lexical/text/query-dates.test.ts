import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  type DateSpan,
  queryDates,
  savedInSpan,
  spanLabel,
} from "../../../../src/recall/lexical/text/query-dates.ts";

// Wednesday 10 May 2023, noon local time: every span below is a local calendar span.
const NOW = new Date(2023, 4, 10, 12).getTime();
const local = (month: number, day: number, year = 2023) => new Date(year, month - 1, day).getTime();

async function spans(query: string, now = NOW): Promise<{ label: string; everyYear: boolean }[]> {
  return (await queryDates(query, now)).map((span: DateSpan) => ({
    label: spanLabel(span),
    everyYear: span.everyYear,
  }));
}

describe("queryDates", () => {
  it("finds nothing in a question without a date", async () => {
    assert.deepEqual(await queryDates("What book did Caroline recommend?", NOW), []);
    assert.deepEqual(await queryDates("她推荐了哪本书？", NOW), []);
    assert.deepEqual(await queryDates("May I ask what she read?", NOW), []);
    assert.deepEqual(await queryDates("What did she do at 2 pm?", NOW), [], "a time alone is no date");
  });

  it("reads English days, with and without a year", async () => {
    assert.deepEqual(await spans("What book did I read on May 6th?"), [{ label: "05-06", everyYear: true }]);
    assert.deepEqual(await spans("What happened on 4 May 2023?"), [
      { label: "2023-05-04", everyYear: false },
    ]);
    assert.deepEqual(await spans("Notes from 2023-05-04"), [{ label: "2023-05-04", everyYear: false }]);
    assert.deepEqual(await spans("Where did Melanie camp in June?"), [
      { label: "06-01…06-30", everyYear: true },
    ]);
    assert.deepEqual(await spans("What did Maria donate in December 2023?"), [
      { label: "2023-12-01…2023-12-31", everyYear: false },
    ]);
  });

  it("reads English relative dates against the query's time", async () => {
    assert.deepEqual(await spans("what did I eat yesterday"), [{ label: "2023-05-09", everyYear: false }]);
    assert.deepEqual(await spans("what did I fix two days ago"), [{ label: "2023-05-08", everyYear: false }]);
    // The calendar week before this one, Monday to Sunday.
    assert.deepEqual(await spans("where did I hike last week"), [
      { label: "2023-05-01…2023-05-07", everyYear: false },
    ]);
    assert.deepEqual(await spans("what did I buy last month"), [
      { label: "2023-04-01…2023-04-30", everyYear: false },
    ]);
    assert.deepEqual(await spans("what did we do last weekend"), [
      { label: "2023-05-06…2023-05-07", everyYear: false },
    ]);
    // A bare weekday looks back: Friday before Wednesday the 10th is the 5th, not the 12th.
    assert.deepEqual(await spans("what did I cook on Friday"), [{ label: "2023-05-05", everyYear: false }]);
  });

  it("reads Chinese dates, chrono's and the rules' alike", async () => {
    assert.deepEqual(await spans("在5月4日我向你咨询了给朋友送什么礼物"), [
      { label: "05-04", everyYear: true },
    ]);
    assert.deepEqual(await spans("5月4号我买了什么"), [{ label: "05-04", everyYear: true }]);
    assert.deepEqual(await spans("2023年5月4日的会议"), [{ label: "2023-05-04", everyYear: false }]);
    assert.deepEqual(await spans("我昨天吃了什么"), [{ label: "2023-05-09", everyYear: false }]);
    assert.deepEqual(await spans("前天去了哪里"), [{ label: "2023-05-08", everyYear: false }]);
    assert.deepEqual(await spans("两天前我在哪个公园跑步"), [{ label: "2023-05-08", everyYear: false }]);
    assert.deepEqual(await spans("3天前的电影"), [{ label: "2023-05-07", everyYear: false }]);
    assert.deepEqual(await spans("上周我看了哪些电影"), [
      { label: "2023-05-01…2023-05-07", everyYear: false },
    ]);
    assert.deepEqual(await spans("上个月买的书"), [{ label: "2023-04-01…2023-04-30", everyYear: false }]);
    assert.deepEqual(await spans("星期一做了什么"), [{ label: "2023-05-08", everyYear: false }]);
  });

  it("reads Japanese dates", async () => {
    assert.deepEqual(await spans("5月4日に何を買いましたか"), [{ label: "05-04", everyYear: true }]);
    assert.deepEqual(await spans("昨日の夕食は何でしたか"), [{ label: "2023-05-09", everyYear: false }]);
    assert.deepEqual(await spans("一昨日はどこに行きましたか"), [{ label: "2023-05-08", everyYear: false }]);
    assert.deepEqual(await spans("先週読んだ本"), [{ label: "2023-05-01…2023-05-07", everyYear: false }]);
    assert.deepEqual(await spans("二日前の話"), [{ label: "2023-05-08", everyYear: false }]);
  });

  it("matches a year-less day in any year, a dated one only in its year", async () => {
    const [yearless] = await queryDates("May 4", NOW);
    assert.equal(savedInSpan(yearless, local(5, 4, 2021) + 3_600_000), true);
    assert.equal(savedInSpan(yearless, local(5, 5, 2021) + 3_600_000), false);
    const [dated] = await queryDates("4 May 2023", NOW);
    assert.equal(savedInSpan(dated, local(5, 4) + 23 * 3_600_000), true);
    assert.equal(savedInSpan(dated, local(5, 4, 2021) + 3_600_000), false);
  });

  it("reads no memory's date into words that only look like one", async () => {
    // A hypothetical's date is when the thing would happen; the plan was told (and saved) before.
    assert.deepEqual(await spans("Which states might Tim be in during September 2023 given his plans?"), []);
    assert.deepEqual(await spans("Would Tim enjoy a Sunday morning hike?"), []);
    assert.deepEqual(await spans("我下个月应该用什么包管理器"), []);
    assert.deepEqual(await spans("来週の金曜日にデプロイする予定ですか"), []);
    // A vague count is no day.
    assert.deepEqual(await spans("What did Tim do a few years ago?"), []);
    assert.deepEqual(await spans("他几年前去过哪里"), []);
    // "today", a bare weekday, "this week" in a present-tense request mean "currently" or "every".
    assert.deepEqual(await spans("What do we use today to deploy?"), []);
    assert.deepEqual(await spans("what's the rule on Friday deploys"), []);
    assert.deepEqual(await spans("which dashboards matter this week"), []);
    assert.deepEqual(await spans("我今天用什么包管理器"), []);
    assert.deepEqual(await spans("今日のデプロイ手順は"), []);
    // "march" the verb.
    assert.deepEqual(await spans("Did he march in the parade?"), []);
  });

  it("still reads those words as a day in a question about the past", async () => {
    assert.deepEqual(await spans("What did I fix today?"), [{ label: "2023-05-10", everyYear: false }]);
    assert.deepEqual(await spans("Which tests failed on Friday?"), [
      { label: "2023-05-05", everyYear: false },
    ]);
    assert.deepEqual(await spans("what did we ship this week"), [
      { label: "2023-05-08…2023-05-14", everyYear: false },
    ]);
    assert.deepEqual(await spans("我今天改了哪些配置"), [{ label: "2023-05-10", everyYear: false }]);
    assert.deepEqual(await spans("今日は何を直しましたか"), [{ label: "2023-05-10", everyYear: false }]);
    // "Could you…" is a request, not a hypothesis.
    assert.deepEqual(await spans("Could you tell me what I did yesterday?"), [
      { label: "2023-05-09", everyYear: false },
    ]);
    assert.deepEqual(await spans("Where did Melanie march in March 2023?"), [
      { label: "2023-03-01…2023-03-31", everyYear: false },
    ]);
  });
});
