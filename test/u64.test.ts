/** src/u64.ts: the little-endian u64 reader the binary formats share (ZIP64, zstd, zarrs headers). */
import assert from "node:assert/strict";
import { test } from "node:test";
import { readU64 } from "../src/u64.js";

test("readU64 reads within its view only: a field running past the view's end throws, as DataView's getters do", () => {
  const buf = Uint8Array.of(0xff, 1, 0, 0, 0, 0, 0, 0, 0, 9, 9, 9, 9, 9, 9, 9, 9, 7);
  const view = buf.subarray(1, 9);
  assert.equal(readU64(view, 0), 1);
  // Bytes 9.. lie in the buffer but past the view: the old DataView over (byteOffset + at, 8) read them.
  assert.throws(() => readU64(view, 4), RangeError);
  assert.throws(() => readU64(view, 8), RangeError);
  assert.equal(readU64(buf, 9), 0x0909090909090909);
  // Past 2^53 still past MAX_SAFE_INTEGER, so callers' length checks refuse it.
  assert.ok(readU64(Uint8Array.of(1, 0, 0, 0, 0, 0, 0x20, 0), 0) > Number.MAX_SAFE_INTEGER);
});
