// Reads the package's public surface with the TypeScript compiler: the entries package.json
// "exports" names, each entry's export list, and the types the exports mention that no entry
// exports. Used by test/entry-exports.test.ts.
import fs from "node:fs";
import path from "node:path";
import ts from "typescript";

const repo = path.resolve(import.meta.dirname, "../..");

/** One public entry: its subpath in package.json ("." for the root) and its source file. */
export interface PublicEntry {
  subpath: string;
  source: string;
}

/**
 * The entries package.json exports, each mapped from its built `./dist/….js` back to the source
 * file it is compiled from (`src/….ts`, see tsconfig.build.json's rootDir). Throws when an entry's
 * `import` or `types` does not follow that shape, so a hand-edited entry cannot slip past the tests.
 */
export function publicEntries(): PublicEntry[] {
  const pkg = JSON.parse(fs.readFileSync(path.join(repo, "package.json"), "utf8")) as {
    exports: Record<string, { types: string; import: string }>;
  };
  return Object.entries(pkg.exports).map(([subpath, target]) => {
    const match = /^\.\/dist\/(.+)\.js$/.exec(target.import);
    if (!match || target.types !== `./dist/${match[1]}.d.ts`) {
      throw new Error(`package.json exports["${subpath}"] must be ./dist/X.js with types ./dist/X.d.ts`);
    }
    return { subpath, source: path.join(repo, "src", `${match[1]}.ts`) };
  });
}

/** Where a referenced type comes from, for a failure message a reader can act on. */
export interface UnexportedType {
  name: string;
  declaredIn: string;
  /** The first public export (entry and name) through which the walk reached it. */
  reachedFrom: string;
}

export interface PublicSurface {
  /** Per subpath: every exported name, sorted; type-only exports as `type Name`. */
  exports: Record<string, string[]>;
  /** Types declared under src/ that some export's signature mentions but no entry exports. */
  unexported: UnexportedType[];
}

/** Names sort as a reader looks them up: by the name itself, ignoring case and a `type ` mark. */
const sortKey = (name: string) => name.replace(/^type /, "").toLowerCase();

const NAMED_TYPE =
  ts.SymbolFlags.Interface | ts.SymbolFlags.Class | ts.SymbolFlags.TypeAlias | ts.SymbolFlags.Enum;

/** Compiles the entries (type information only, nothing emitted) and reads their surface. */
export function readPublicSurface(entries: readonly PublicEntry[] = publicEntries()): PublicSurface {
  const configFile = ts.readConfigFile(path.join(repo, "tsconfig.json"), ts.sys.readFile);
  const parsed = ts.parseJsonConfigFileContent(configFile.config, ts.sys, repo);
  const program = ts.createProgram(
    entries.map((entry) => entry.source),
    { ...parsed.options, noEmit: true },
  );
  const checker = program.getTypeChecker();
  const src = path.join(repo, "src") + path.sep;
  const inSrc = (declaration: ts.Declaration) =>
    path.resolve(declaration.getSourceFile().fileName).startsWith(src);
  const resolveAlias = (symbol: ts.Symbol) =>
    symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;

  const exports: Record<string, string[]> = {};
  const perEntry: { subpath: string; symbols: ts.Symbol[] }[] = [];
  const exported = new Set<ts.Symbol>();
  for (const entry of entries) {
    const file = program.getSourceFile(entry.source);
    const moduleSymbol = file && checker.getSymbolAtLocation(file);
    if (!moduleSymbol) throw new Error(`cannot read the entry ${entry.source}`);
    const symbols = checker.getExportsOfModule(moduleSymbol);
    exports[entry.subpath] = symbols
      .map((symbol) =>
        resolveAlias(symbol).flags & ts.SymbolFlags.Value ? symbol.name : `type ${symbol.name}`,
      )
      .sort((a, b) => sortKey(a).localeCompare(sortKey(b), "en"));
    perEntry.push({ subpath: entry.subpath, symbols });
    for (const symbol of symbols) exported.add(resolveAlias(symbol));
  }

  const unexported = new Map<ts.Symbol, UnexportedType>();
  const seen = new Set<ts.Type>();
  let from = "";

  const visitSignature = (signature: ts.Signature) => {
    for (const parameter of signature.getParameters()) visitType(checker.getTypeOfSymbol(parameter));
    for (const parameter of signature.getTypeParameters() ?? []) {
      const constraint = checker.getBaseConstraintOfType(parameter);
      if (constraint) visitType(constraint);
    }
    visitType(checker.getReturnTypeOfSignature(signature));
  };

  /** Notes a named type declared in src/ that no entry exports; true when the walk should look inside. */
  const checkNamed = (symbol: ts.Symbol | undefined): boolean => {
    if (!symbol || !(symbol.flags & NAMED_TYPE)) return true;
    const declaration = symbol.declarations?.[0];
    if (!declaration || !inSrc(declaration)) return false; // lib, node and dependency types: not ours
    if (!exported.has(symbol) && !unexported.has(symbol)) {
      const declaredIn = path.relative(repo, declaration.getSourceFile().fileName);
      unexported.set(symbol, { name: symbol.name, declaredIn, reachedFrom: from });
    }
    return true;
  };

  const visitType = (type: ts.Type): void => {
    if (seen.has(type)) return;
    seen.add(type);
    for (const argument of type.aliasTypeArguments ?? []) visitType(argument);
    if (type.flags & ts.TypeFlags.Object && (type as ts.ObjectType).objectFlags & ts.ObjectFlags.Reference) {
      for (const argument of checker.getTypeArguments(type as ts.TypeReference)) visitType(argument);
    }
    if (type.isUnionOrIntersection()) {
      if (checkNamed(type.aliasSymbol)) for (const part of type.types) visitType(part);
      return;
    }
    if (type.aliasSymbol && !checkNamed(type.aliasSymbol)) return;
    if (!(type.flags & ts.TypeFlags.Object)) return;
    const symbol = type.getSymbol();
    if (!checkNamed(symbol)) return; // a dependency's type: only its type arguments matter here
    for (const base of type.isClassOrInterface() ? (checker.getBaseTypes(type) ?? []) : []) visitType(base);
    for (const property of checker.getPropertiesOfType(type)) {
      const declaration = property.valueDeclaration ?? property.declarations?.[0];
      const modifiers = declaration ? ts.getCombinedModifierFlags(declaration) : 0;
      if (modifiers & (ts.ModifierFlags.Private | ts.ModifierFlags.Protected)) continue;
      const name = declaration && ts.getNameOfDeclaration(declaration);
      if (name && ts.isPrivateIdentifier(name)) continue; // #private fields
      // `@internal` members are stripped from the published .d.ts (tsconfig.build.json stripInternal).
      if (declaration && ts.getJSDocTags(declaration).some((tag) => tag.tagName.text === "internal"))
        continue;
      visitType(checker.getTypeOfSymbol(property));
    }
    for (const info of checker.getIndexInfosOfType(type)) visitType(info.type);
    for (const signature of type.getCallSignatures()) visitSignature(signature);
    for (const signature of type.getConstructSignatures()) visitSignature(signature);
  };

  for (const { subpath, symbols } of perEntry) {
    for (const symbol of symbols) {
      from = `${subpath === "." ? "memdir" : `memdir/${subpath.slice(2)}`}: ${symbol.name}`;
      const target = resolveAlias(symbol);
      if (target.flags & ts.SymbolFlags.Value) visitType(checker.getTypeOfSymbol(target));
      if (target.flags & NAMED_TYPE) visitType(checker.getDeclaredTypeOfSymbol(target));
    }
  }
  return { exports, unexported: [...unexported.values()] };
}
