import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { queryTokens } from "../../../../src/recall/lexical/query.ts";
import { QUERY_MAX_CHARS } from "../../../../src/recall/lexical/text/query-text.ts";
import { SEGMENT_PIECE_CHARS, segmentPieces } from "../../../../src/recall/lexical/text/segment.ts";
import { stemEnglish, tokenize, tokenizeDetailed } from "../../../../src/recall/lexical/text/tokenize.ts";

const words = (text: string) => tokenize(text).filter((term) => !term.endsWith("\u0002"));
const bigrams = (text: string) =>
  tokenize(text)
    .filter((term) => term.endsWith("\u0002"))
    .map((t) => t.slice(0, -1));

describe("tokenize", () => {
  it("maps irregular verb forms to their base so a question meets the memory's tense", () => {
    assert.deepEqual(words("went"), words("go"));
    assert.deepEqual(words("bought"), words("buys"));
    assert.deepEqual(words("children"), words("child"));
    // -ied past tenses meet the base word, not a truncated stem
    assert.deepEqual(words("tried studied"), words("try study"));
  });

  it("splits Chinese into dictionary words, with no spaces needed", () => {
    const terms = words("修复登录测试");
    assert.ok(terms.includes("修复"), terms.join("|"));
    assert.ok(terms.includes("登录"), terms.join("|"));
    assert.ok(terms.includes("测试"), terms.join("|"));
  });

  it("adds character bigrams for CJK runs so query and body agree whatever the segmentation", () => {
    assert.deepEqual(bigrams("集成测试"), ["集成", "成测", "测试"]);
    // "登录模块" segments differently in different contexts; the bigram 模块 is always there
    assert.ok(bigrams("登录模块的集成测试").includes("模块"));
  });

  it("drops particles and the possessive 的 but keeps content words", () => {
    const terms = words("登录模块的集成测试不得 mock 数据库");
    assert.ok(!terms.includes("的"));
    assert.ok(terms.includes("mock"));
    assert.ok(terms.includes("集成"));
  });

  it("handles Japanese", () => {
    const terms = words("認証のリファクタリングはコンプライアンス要件による");
    assert.ok(terms.includes("認証"), terms.join("|"));
    assert.ok(terms.includes("要件"), terms.join("|"));
    assert.ok(!terms.includes("の"));
    assert.ok(bigrams("リファクタリング").includes("リフ"));
  });

  it("folds case and full-width forms", () => {
    assert.deepEqual(tokenize("ＡＰＩ Token"), tokenize("api token"));
    assert.deepEqual(tokenize("ＤＡＴＡＢＡＳＥ"), ["databas"]);
  });

  it("splits file paths and identifiers into their parts", () => {
    assert.deepEqual(tokenize("src/auth/login.integration.test.ts"), [
      "src",
      "auth",
      "login",
      "integr",
      "test",
      "ts",
    ]);
    assert.deepEqual(tokenize("feedback_real-database.md"), ["feedback", "real", "databas", "md"]);
  });

  it("drops English stop words and stems lightly", () => {
    assert.deepEqual(tokenize("What are the paintings she painted?"), ["paint", "paint"]);
    assert.equal(stemEnglish("camping"), stemEnglish("camped"));
    assert.equal(stemEnglish("stories"), "story");
    assert.equal(stemEnglish("class"), "class");
  });

  it("keeps the surface form of each term for explanations", () => {
    assert.deepEqual(
      tokenizeDetailed("Mocked tests").map((t) => t.surface),
      ["mocked", "tests"],
    );
  });

  it("returns nothing for empty or punctuation-only text", () => {
    assert.deepEqual(tokenize(""), []);
    assert.deepEqual(tokenize(" — ，。!?"), []);
  });
});

describe("phrasal verbs written as one word (docs/design.md#phrasal-verbs)", () => {
  it("adds the joined word after a verb and its particle, in any form of the verb, joined by space, hyphen or underscore", () => {
    assert.deepEqual(words("we set up CI"), ["set", "setup", "ci"]);
    assert.deepEqual(words("Setting-up the DB"), ["set", "setup", "db"]);
    assert.deepEqual(words("the request timed out"), ["request", "tim", "timeout"]);
    assert.deepEqual(words("roll back the deploy"), ["roll", "back", "rollback", "deploy"]);
    assert.deepEqual(words("users LOG_IN via sso"), ["user", "log", "login", "via", "sso"]);
    // The joined word written as one is the same term.
    assert.deepEqual(words("the setup and the timeouts"), ["setup", "timeout"]);
  });

  it("joins nothing across punctuation, after a noun marker before 'in', or in a line the segmenter takes", () => {
    assert.deepEqual(words("we set. Up next"), ["set", "next"]);
    assert.deepEqual(words("check the log in grafana"), ["check", "log", "grafana"]);
    assert.deepEqual(words("redis SET with a TTL"), ["redis", "set", "ttl"]);
    assert.ok(!words("set up 数据库").includes("setup"), "a line with Chinese is segmented, not joined");
  });

  it("a prompt asks for the joined word alone: its words are not searched on their own", () => {
    const terms = (query: string) => queryTokens(query).map((token) => token.term);
    assert.deepEqual(terms("how do I set up the frontend"), ["setup", "frontend"]);
    assert.deepEqual(terms("roll back the migration"), ["rollback", "migr"]);
    assert.deepEqual(terms("set the cache ttl"), ["set", "cach", "ttl"]);
    assert.deepEqual(
      queryTokens("why did the build time out").map((token) => token.surface),
      ["build", "time out"],
      "the joined word keeps the prompt's words for --explain",
    );
  });
});

describe("long input", () => {
  it("tokenizes only the opening of a query: 80,000 words give the capped 2,000 terms", () => {
    const tokens = queryTokens("x ".repeat(80_000));
    assert.equal(tokens.length, Math.floor(QUERY_MAX_CHARS / 2));
    assert.ok(tokens.every((token) => token.term === "x"));
  });

  it("gives a long Chinese line the words its sentences have one by one", () => {
    const sentences = Array.from({ length: 3000 }, (_, i) => `第${i}次登录模块的集成测试必须连接真实数据库`);
    const line = sentences.join("。");
    assert.ok(line.length > 50 * SEGMENT_PIECE_CHARS, "far longer than one segmenter piece");
    assert.deepEqual(
      words(line),
      sentences.flatMap((sentence) => words(sentence)),
    );
  });

  it("hands the segmenter pieces that join back to the text, each cut after a space", () => {
    const text = `${"word ".repeat(30_000)}${"长".repeat(2500)}`;
    const pieces = segmentPieces(text);
    assert.equal(pieces.join(""), text);
    assert.ok(pieces.every((piece) => piece.length <= SEGMENT_PIECE_CHARS));
    const spaced = pieces.filter((piece) => piece.startsWith("word"));
    assert.ok(spaced.slice(0, -1).every((piece) => piece.endsWith(" ")));
  });
});
