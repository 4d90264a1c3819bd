/**
 * Byte ranges over HTTP, shared by FetchStore and S3Store: the Range header for a RangeRequest,
 * and the requested bytes out of whatever the server answered (RFC 9110 §14).
 */
import { StoreError } from "../errors.js";
import { maxStoredBytes } from "../limits.js";
import { replyVersion, type BodyLimit, type HttpReply } from "./http.js";
import { rangeBounds, sliceRange } from "./keys.js";
import type { RangeRequest, VersionedRange } from "./types.js";

/** `bytes=a-b`, `bytes=a-` or a suffix `bytes=-n`. The caller answers empty ranges itself. */
export function rangeHeader(range: RangeRequest): string {
  if (range.offset < 0) return `bytes=${range.offset}`;
  return `bytes=${range.offset}-${range.length === undefined ? "" : range.offset + range.length - 1}`;
}

/** Room past a range's length in a 206: multipart framing, a slightly wider range than asked. */
const RANGE_SLACK_BYTES = 64 * 1024;

/**
 * How much of the answer to a range request can be wanted: a 206 holds the range (and a little
 * room, so that a server's odd answer gets its own error from bytesOfRangeReply), of a 200, the
 * whole value, only the bytes up to the range's end are needed. Past that, a 206 is TOO_LARGE;
 * anything open-ended (a suffix, which some servers answer from the start) is bounded as a whole
 * value is.
 */
export function rangeBodyLimit(range: RangeRequest, status: number): BodyLimit {
  if (range.offset < 0 || range.length === undefined) return { max: maxStoredBytes() };
  if (status === 206) return { max: range.length + RANGE_SLACK_BYTES };
  return { max: range.offset + range.length, stop: true };
}

/** The absolute bytes [start, end) to ask for instead, when the first answer missed them. */
export interface Reask {
  reask: { offset: number; length: number };
}

/**
 * The bytes of `range` from a 200 or 206 answer, with the value's size (where told) and version. A 200 is the whole value (the server ignored
 * Range). A 206 must say with Content-Range which bytes it holds (RFC 9110 §15.3.7): without it,
 * or with several parts, nothing tells which bytes arrived, which is an error saying so. A 206
 * whose bytes do not cover the request but whose total size is known (a server that answers a
 * suffix request from the start, as some S3 emulators do) gives the absolute range to ask again.
 */
export function bytesOfRangeReply(reply: HttpReply, range: RangeRequest, what: string): VersionedRange | Reask {
  const { body } = reply;
  // Versioned by ETag only: a Last-Modified second cannot tell two writes within it apart.
  const version = reply.headers.get("etag") ? replyVersion(reply) : "";
  if (reply.status !== 206) return { bytes: sliceRange(body, range), size: body.length, version };
  const header = reply.headers.get("content-range");
  if (header === null) {
    const type = reply.headers.get("content-type") ?? "";
    const multi = /^multipart\/byteranges/i.test(type) ? " (a multipart/byteranges body, which parzarr does not ask for)" : "";
    throw new StoreError(
      `${what} answered 206 Partial Content without a Content-Range header${multi} for Range: ${rangeHeader(range)}: ` +
        `the server does not say which ${body.length} bytes it sent, so they cannot be used`,
    );
  }
  const m = /^bytes (\d+)-(\d+)\/(\d+|\*)$/.exec(header.trim());
  if (!m) throw new StoreError(`${what} answered 206 with an unreadable Content-Range ${JSON.stringify(header)} for Range: ${rangeHeader(range)}`);
  const first = Number(m[1]);
  const last = Number(m[2]);
  const size = m[3] === "*" ? undefined : Number(m[3]);
  if (last < first || body.length !== last - first + 1) {
    throw new StoreError(`${what} answered Content-Range ${header.trim()} with ${body.length} bytes of body for Range: ${rangeHeader(range)}`);
  }
  let want: { start: number; end: number };
  if (size !== undefined) want = rangeBounds(size, range);
  else if (range.offset >= 0) want = { start: range.offset, end: range.length === undefined ? last + 1 : range.offset + range.length };
  // A suffix of unknown total: the server chose where it starts; it ends at the value's end.
  else want = { start: first, end: last + 1 };
  if (want.start >= first && want.end <= last + 1) return { bytes: body.subarray(want.start - first, want.end - first), size, version };
  if (size !== undefined) return { reask: { offset: want.start, length: want.end - want.start } };
  throw new StoreError(`${what} answered bytes ${first}-${last} for Range: ${rangeHeader(range)}`);
}
