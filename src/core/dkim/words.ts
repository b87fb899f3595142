// Word-at-a-time scanning of octets for the DKIM hot loops (line ends, whitespace). No I/O.
//
// A 1 MB message is mostly octets that need no attention (base64 lines, words between spaces).
// Reading four at a time through an Int32Array view and testing them together with the classic
// "does this word hold a byte less than n" bit trick (exact for n <= 128) skips them in one step.

/** The platform's byte order: the tricks below only need to know a word's bytes, not their order. */
export const WORDS_OK = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1 || new Uint8Array(new Uint32Array([1]).buffer)[3] === 1;

export interface WordView {
  words: Int32Array;
  /** Index in the octets of the first octet of words[0] (aligned to 4 in the underlying buffer). */
  start: number;
  /** Index just past the last whole word. */
  end: number;
}

/** An aligned Int32Array over the octets, or null for short inputs. */
export function wordView(b: Uint8Array): WordView | null {
  if (!WORDS_OK || b.length < 16) return null;
  const start = (4 - (b.byteOffset & 3)) & 3;
  const count = (b.length - start) >> 2;
  return { words: new Int32Array(b.buffer, b.byteOffset + start, count), start, end: start + count * 4 };
}

/** Some byte of w is below 0x21 (a control character, SP or TAB, CR, LF). */
export const hasCtlOrSpace = (w: number): boolean => ((w - 0x21212121) & ~w & 0x80808080) !== 0;

/** Some byte of w is LF (0x0A). */
export function hasLf(w: number): boolean {
  const x = w ^ 0x0a0a0a0a;
  return ((x - 0x01010101) & ~x & 0x80808080) !== 0;
}
