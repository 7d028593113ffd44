import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { stemEnglish, tokenize, tokenizeDetailed } from "../../../src/recall/lexical/tokenize.ts";

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
