import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { HeaderCache } from "../../../src/memdir/scan/header-cache.ts";
import { scanHeaders } from "../../../src/memdir/scan/scan.ts";
import { LexicalIndexCache } from "../../../src/recall/lexical/index/lexical-index.ts";
import { queryTokens } from "../../../src/recall/lexical/query.ts";
import { createLexicalSelector } from "../../../src/recall/select-lexical.ts";
import { makeTempDir } from "../../helpers/temp.ts";

const surfaces = (query: string) => queryTokens(query).map((token) => token.surface);

describe("Chinese and Japanese framing words", () => {
  it("drops question words, pronouns and particles, and the character pairs across them", () => {
    assert.ok(
      !surfaces("你还记得我曾经去过哪些城市吗？").some((word) => /记得|曾经|哪些|吗|你|我/.test(word)),
    );
    assert.ok(surfaces("你还记得我曾经去过哪些城市吗？").includes("城市"));
    assert.ok(!surfaces("我送了朋友什么礼物？").some((word) => word.includes("什") || word.includes("么")));
    assert.deepEqual(
      surfaces("私の猫の名前は何ですか").filter((word) => /名前|何|ですか|私/.test(word)),
      [],
    );
  });

  it("keeps a framing character that is part of a content word (酒吧, 任何, 自我介绍)", () => {
    assert.ok(surfaces("上次去的酒吧叫什么？").includes("酒吧"));
    assert.ok(surfaces("面试时的自我介绍").includes("自我"));
  });

  it("keeps the framing words of a question made of nothing else", () => {
    assert.ok(surfaces("我的名字是什么？").includes("名字"));
  });

  it("recalls the pet's name, not the memory where someone gives their own", async () => {
    const dir = makeTempDir("memdir-framing-");
    const write = (file: string, description: string, body: string) =>
      fs.writeFileSync(path.join(dir, file), `---\ndescription: ${description}\ntype: user\n---\n${body}\n`);
    write("my-name.md", "我的名字是王峰", "用户：我的名字是王峰，叫我小王就行。");
    write("cat.md", "领养了一只橘猫咪咪", "用户：我领养了一只橘猫，它叫咪咪。");
    write("weather.md", "今天下雨", "用户：今天下雨了。");
    const headers = await scanHeaders(dir, { cache: new HeaderCache() });
    const selector = createLexicalSelector({ cache: new LexicalIndexCache(), wordVectors: null });
    const select = async (query: string) =>
      (await selector.select({ query, headers, k: 5, memoryDir: dir })).picks.map((pick) => pick.file);
    assert.deepEqual(await select("我的橘猫，它的名字是？"), ["cat.md"]);
    // A content query about names still finds the name.
    assert.deepEqual(await select("我的名字是什么？"), ["my-name.md"]);
  });
});
