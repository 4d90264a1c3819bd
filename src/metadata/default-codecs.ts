/** The codecs a new array gets when its creator names none (createArray, the copy engine). */
import { componentsPerElement, type DataType } from "./dtype.js";
import type { CodecConfig } from "./array-metadata.js";

/**
 * The array->bytes codec a type gets by default: `bytes`, or its own for variable-length and
 * optional types. A multi-byte type (or one a filter before it may widen: `widened`) gets the
 * platform's usual little-endian.
 */
export function defaultArrayToBytes(dtype: DataType, widened = false): CodecConfig {
  switch (dtype.kind) {
    case "string":
      return { name: "vlen-utf8", configuration: {} };
    case "bytes":
      return { name: "vlen-bytes", configuration: {} };
    case "optional": {
      const mask_codecs = [{ name: "packbits", configuration: {} }];
      const data = defaultArrayToBytes(dtype.inner);
      return { name: "optional", configuration: { mask_codecs, data_codecs: [{ name: data.name, configuration: data.configuration ?? {} }] } };
    }
    default:
      return { name: "bytes", configuration: widened || dtype.itemSize / componentsPerElement(dtype) > 1 ? { endian: "little" } : {} };
  }
}
