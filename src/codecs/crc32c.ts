/**
 * The `crc32c` codec (bytes->bytes): a CRC-32C (Castagnoli) of the bytes appended little-endian.
 * numcodecs' own `numcodecs.crc32c` may put it first (`location: "start"`).
 */
import { checksumCodec } from "./checksum32.js";
import { slicingCrc32 } from "./slicing-crc32.js";

export const crc32c = slicingCrc32(0x82f63b78);

export const crc32cCodec = checksumCodec("crc32c", crc32c, "end", false);
export const numcodecsCrc32cCodec = checksumCodec("numcodecs.crc32c", crc32c, "end", true);
