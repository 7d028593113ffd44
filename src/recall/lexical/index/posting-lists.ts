/**
 * The inverted index of a {@link LexicalIndex}: term id → the slots of the memories containing it,
 * in the order they were posted (the ranker's tie order depends on it, so every representation
 * below keeps that order).
 *
 * Three tiers, read in this order for each term:
 * - `packed`: all lists in two typed arrays (offsets per term id + slots, 16-bit while slots fit),
 *   what a large sync or a cache file leaves — ~2 million entries at 20,000 memories;
 * - `extra`: small per-term arrays for the few memories posted since (an edit, a new note);
 * - `pending`: memories posted during the current sync, expanded only when the sync ends. A cold
 *   sync of 20,000 files used to grow 23,000 JS arrays (tens of MB of slack and garbage at the
 *   process's peak) only to pack them afterwards.
 */

import { grow } from "./dictionary.ts";
import type { IndexedMemory } from "./memory-record.ts";
import { forEachTermAnywhere } from "./memory-record.ts";

/** Pending memories at or above this count are packed; fewer go to the small per-term arrays. */
const PACK_AT = 256;

export class PostingLists {
  #offsets: Uint32Array = new Uint32Array(1);
  #slots: Uint16Array | Uint32Array = new Uint16Array(0);
  readonly #extra = new Map<number, number[]>();
  #pendingMemories: IndexedMemory[] = [];
  #pendingSlots: number[] = [];
  // Per term id: the stamp of the memory last seen (each term once per memory while expanding).
  #stamps = new Uint32Array(1024);
  #stamp = 0;

  /** Takes packed lists from a cache file (`offsets` has one entry per term id plus one). */
  adopt(offsets: Uint32Array, slots: Uint32Array): void {
    this.clear();
    this.#offsets = offsets;
    this.#slots = slots;
  }

  /** Posts `memory` (each of its terms once) under `slot`, after every list's current entries. */
  post(memory: IndexedMemory, slot: number): void {
    this.#pendingMemories.push(memory);
    this.#pendingSlots.push(slot);
  }

  /** Drops every list. */
  clear(): void {
    this.#offsets = new Uint32Array(1);
    this.#slots = new Uint16Array(0);
    this.#extra.clear();
    this.#pendingMemories = [];
    this.#pendingSlots = [];
  }

  /** Calls `visit(slot)` for each entry of the list of `termId`, in posting order. */
  forEachSlot(termId: number, visit: (slot: number) => void): void {
    this.#flush();
    if (termId + 1 < this.#offsets.length) {
      const slots = this.#slots;
      for (let i = this.#offsets[termId], end = this.#offsets[termId + 1]; i < end; i++) visit(slots[i]);
    }
    const extra = this.#extra.get(termId);
    if (extra) for (const slot of extra) visit(slot);
  }

  /** Expands the pending memories: into the packed arrays when there are many, else into `extra`. */
  #flush(): void {
    const memories = this.#pendingMemories;
    if (memories.length === 0) return;
    const slots = this.#pendingSlots;
    this.#pendingMemories = [];
    this.#pendingSlots = [];
    if (memories.length >= PACK_AT) {
      this.#pack(memories, slots);
      return;
    }
    for (let i = 0; i < memories.length; i++) {
      const slot = slots[i];
      this.#forEachUniqueTerm(memories[i], (termId) => {
        let list = this.#extra.get(termId);
        if (!list) {
          list = [];
          this.#extra.set(termId, list);
        }
        list.push(slot);
      });
    }
  }

  /** Rewrites packed + extra + `memories` as new packed arrays (counting sort by term id). */
  #pack(memories: readonly IndexedMemory[], memorySlots: readonly number[]): void {
    const oldOffsets = this.#offsets;
    const oldSlots = this.#slots;
    let termLimit = oldOffsets.length - 1;
    let largestSlot = 0;
    for (const slot of oldSlots) if (slot > largestSlot) largestSlot = slot;
    for (const [termId, list] of this.#extra) {
      if (termId + 1 > termLimit) termLimit = termId + 1;
      for (const slot of list) if (slot > largestSlot) largestSlot = slot;
    }
    for (const slot of memorySlots) if (slot > largestSlot) largestSlot = slot;
    // The new memories' distinct terms, gathered once: memory i's are terms[ends[i - 1], ends[i]).
    let terms: Uint32Array = new Uint32Array(4096);
    const ends = new Uint32Array(memories.length);
    let termCount = 0;
    memories.forEach((memory, i) => {
      this.#forEachUniqueTerm(memory, (termId) => {
        if (termCount >= terms.length) terms = grow(terms, termCount + 1);
        terms[termCount++] = termId;
        if (termId + 1 > termLimit) termLimit = termId + 1;
      });
      ends[i] = termCount;
    });
    const counts = new Uint32Array(termLimit + 1);
    for (let termId = 0; termId + 1 < oldOffsets.length; termId++)
      counts[termId + 1] = oldOffsets[termId + 1] - oldOffsets[termId];
    for (const [termId, list] of this.#extra) counts[termId + 1] += list.length;
    for (let k = 0; k < termCount; k++) counts[terms[k] + 1]++;
    for (let termId = 0; termId < termLimit; termId++) counts[termId + 1] += counts[termId];
    const offsets = counts;
    const slots =
      largestSlot <= 0xffff ? new Uint16Array(offsets[termLimit]) : new Uint32Array(offsets[termLimit]);
    const next = offsets.slice(0, termLimit);
    for (let termId = 0; termId + 1 < oldOffsets.length; termId++)
      for (let i = oldOffsets[termId]; i < oldOffsets[termId + 1]; i++) slots[next[termId]++] = oldSlots[i];
    for (const [termId, list] of this.#extra) for (const slot of list) slots[next[termId]++] = slot;
    this.#extra.clear();
    for (let i = 0, k = 0; i < memories.length; i++) {
      const slot = memorySlots[i];
      for (const end = ends[i]; k < end; k++) slots[next[terms[k]]++] = slot;
    }
    this.#offsets = offsets;
    this.#slots = slots;
  }

  /** Calls `visit` once per distinct term id of `memory` (a term may sit in several fields). */
  #forEachUniqueTerm(memory: IndexedMemory, visit: (termId: number) => void): void {
    const stamp = ++this.#stamp;
    forEachTermAnywhere(memory, (termId) => {
      if (termId >= this.#stamps.length) {
        const grown = new Uint32Array(Math.max(termId + 1, this.#stamps.length * 2));
        grown.set(this.#stamps);
        this.#stamps = grown;
      }
      if (this.#stamps[termId] === stamp) return;
      this.#stamps[termId] = stamp;
      visit(termId);
    });
  }
}
