/**
 * numcodecs `categorize` (array->array): strings to small integer codes, 1 + the label's index,
 * 0 for strings that are no label (which decode as "", as numcodecs does).
 */
import { InvalidMetadataError } from "../../errors.js";
import type { TypedArray } from "../../metadata/dtype.js";
import { allocTypedArray } from "../../metadata/elements.js";
import type { ArrayToArrayCodec, CodecFactory } from "../types.js";
import { contiguousData, contiguousView } from "../view.js";
import { numericOption, specAs } from "./elementwise.js";

export const categorizeCodec: CodecFactory = (conf, spec) => {
  const name = "numcodecs.categorize";
  const labels = conf.labels;
  if (!Array.isArray(labels) || labels.some((l) => typeof l !== "string")) {
    throw new InvalidMetadataError(`codec "${name}": "labels" must be a list of strings`);
  }
  if (spec.dtype.kind !== "string") throw new InvalidMetadataError(`codec "${name}": needs a string array, not ${spec.dtype.name}`);
  const astype = numericOption(conf, "astype", name, numericOption({ astype: "|u1" }, "astype", name, undefined));
  const index = new Map((labels as string[]).map((l, i) => [l, i + 1]));
  const codec: ArrayToArrayCodec = {
    kind: "array_to_array",
    name,
    encodedSpec: (s) => specAs(s, astype),
    encode(view) {
      const src = contiguousData(view, spec.dtype) as string[];
      const out = allocTypedArray(astype, src.length);
      const o = out as unknown as { [k: number]: number | bigint };
      const big = out instanceof BigInt64Array || out instanceof BigUint64Array;
      src.forEach((s, i) => (o[i] = big ? BigInt(index.get(s) ?? 0) : (index.get(s) ?? 0)));
      return contiguousView(out, view.shape);
    },
    decode(view) {
      const codes = contiguousData(view, astype) as TypedArray;
      const out = new Array<string>(codes.length);
      for (let i = 0; i < codes.length; i++) {
        const c = Number(codes[i]);
        out[i] = c >= 1 && c <= labels.length ? (labels[c - 1] as string) : "";
      }
      return contiguousView(out, view.shape);
    },
  };
  return { codec, configuration: { labels, dtype: conf.dtype ?? "|O", astype: conf.astype ?? "|u1" } };
};
