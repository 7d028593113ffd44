/** Term string ↔ dense integer id, and counts per term id: the vocabulary of one lexical index. */

/** Term string ↔ dense integer id, shared by all files of one index. */
export class TermDictionary {
  readonly #ids = new Map<string, number>();
  /** The term of each id (the same strings as the map's keys, so ~8 bytes per term). */
  readonly #terms: string[] = [];
  /** Typo look-ups, valid while the dictionary has not grown (ids are never reused). */
  readonly #nearMemo = new Map<string, { size: number; ids: number[] }>();
  intern(term: string): number {
    let id = this.#ids.get(term);
    if (id === undefined) {
      id = this.#ids.size;
      this.#ids.set(term, id);
      this.#terms.push(term);
    }
    return id;
  }
  lookup(term: string): number | undefined {
    return this.#ids.get(term);
  }
  /** Every term, in id order. */
  terms(): string[] {
    return [...this.#terms];
  }
  /** The term of `id` (`undefined` for an id never handed out). */
  term(id: number): string | undefined {
    return this.#terms[id];
  }
  get size(): number {
    return this.#ids.size;
  }
  /**
   * Ids of terms at Damerau–Levenshtein distance 1 from `term` (one insertion, deletion,
   * substitution or swap of neighbors). Linear in the dictionary, so callers use it only for
   * query words the index does not know.
   */
  withinOneEdit(term: string): number[] {
    const memo = this.#nearMemo.get(term);
    if (memo && memo.size === this.#ids.size) return memo.ids;
    const found: number[] = [];
    for (const [candidate, id] of this.#ids) {
      if (Math.abs(candidate.length - term.length) <= 1 && isOneEditApart(term, candidate)) found.push(id);
    }
    if (this.#nearMemo.size > 1000) this.#nearMemo.clear();
    this.#nearMemo.set(term, { size: this.#ids.size, ids: found });
    return found;
  }
}

/** True when `a` and `b` differ by exactly one insertion, deletion, substitution or adjacent swap. */
export function isOneEditApart(a: string, b: string): boolean {
  if (a === b) return false;
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const restA = endA - start;
  const restB = endB - start;
  if (restA <= 1 && restB <= 1) return true; // one substitution, insertion or deletion
  // adjacent transposition: "ab" ↔ "ba"
  return restA === 2 && restB === 2 && a[start] === b[start + 1] && a[start + 1] === b[start];
}

/** Counts per term id in a growable typed array. */
export class Counter {
  #counts = new Int32Array(1024);
  /** Replaces every count (loading a persisted index). */
  restore(counts: Int32Array): void {
    const copy = new Int32Array(Math.max(1024, counts.length));
    copy.set(counts);
    this.#counts = copy;
  }
  add(id: number, delta: number): void {
    if (id >= this.#counts.length) {
      const grown = new Int32Array(Math.max(id + 1, this.#counts.length * 2));
      grown.set(this.#counts);
      this.#counts = grown;
    }
    this.#counts[id] += delta;
  }
  get(id: number): number {
    return id < this.#counts.length ? this.#counts[id] : 0;
  }
}

/** A copy of `array` with room for at least `atLeast` entries (doubling, so growth is amortized). */
export function grow(array: Uint32Array, atLeast: number): Uint32Array {
  const grown = new Uint32Array(Math.max(atLeast, array.length * 2));
  grown.set(array);
  return grown;
}
