/**
 * A node's metadata document as read from a store, with what parsing it needs loaded: the rare
 * data types' module (rare-types.ts), when the document names a type that dtype-names.ts alone
 * does not parse, is imported before the document is handed on, so that the synchronous parse
 * (parseV3, parseV2Array, consolidated metadata) finds it. The readers of node documents call
 * this from the async function that awaits the store, so a page reading plain numeric arrays
 * never loads it and one that opens a rare type waits for it there, once. The same holds for the
 * lenient JSON parser (json-lenient.ts: Python's NaN/Infinity, integers beyond 2^53), imported
 * by the first document that JSON.parse alone does not read exactly.
 */
import { onFirstUse } from "../first-use.js";
import { UnsupportedError } from "../errors.js";
import type { DataType } from "./dtype.js";
import { commonDataType, parseDataType, rareTypesLoaded } from "./dtype-names.js";
import { isJsonObject, jsonTextOf, parsePlainJson } from "./json.js";

const loadRareTypes = onFirstUse(() => import("./rare-types.js"))(() => undefined);
const parseLenient = onFirstUse(() => import("./json-lenient.js"))((m, text: string, key: string) => m.parseJsonText(text, key));

/**
 * The parsed document, or (the first time it needs the lenient parser or names a rare type) a
 * promise of it once json-lenient.ts or rare-types.ts is loaded.
 */
export function metadataJson(bytes: Uint8Array, key: string): unknown {
  const parsed = metadataText(jsonTextOf(bytes, key), key);
  // A parsed JSON document is never a promise: a promise here is the parser still loading.
  return parsed instanceof Promise ? parsed.then((doc) => withDataTypes(doc, key)) : withDataTypes(parsed, key);
}

/**
 * A document's text parsed as Python writes JSON: by JSON.parse alone when that reads it exactly,
 * else by json-lenient.ts (a promise the first time, while it loads).
 */
export function metadataText(text: string, key: string): unknown {
  const plain = parsePlainJson(text, key);
  return plain !== undefined ? plain.doc : parseLenient(text, key);
}

function withDataTypes(doc: unknown, key: string): unknown {
  const loading = key.endsWith(".zattrs") ? undefined : rareTypesReady(doc);
  return loading ? loading.then(() => doc) : doc;
}

/**
 * Loads rare-types.ts when `given` (a document, or options naming data types: createArray's,
 * openArray's `expect`) names a type it parses: undefined when there is nothing to wait for.
 */
export function rareTypesReady(given: unknown): Promise<void> | undefined {
  return rareTypesLoaded() || !namesRareType(given) ? undefined : Promise.resolve(loadRareTypes());
}

/**
 * Loads the code of every data type (in Node it is loaded at start). On a page the rarer types —
 * narrow floats, datetimes, fixed-length strings and bytes, raw bits, records, optional — load with
 * the first array whose metadata names one; a page that parses such a name itself, before any array
 * named one, awaits this first.
 */
export async function loadDataTypes(): Promise<void> {
  if (!rareTypesLoaded()) await loadRareTypes();
}

/**
 * Parses a dtype option or metadata value: a v3 name (`"int32"`, `"string"`, `"r16"`), a v3
 * object (`{ name: "numpy.datetime64", configuration: { unit: "ms", scale_factor: 10 } }`), a
 * numpy type string (`"<i4"`, `"|S7"`, `"<U5"`, `"<M8[10ms]"`, `"|O"`) or a numpy structured
 * description (`[["a", "<i4"], ["b", "<f8", [2]]]`). On a page, a rare type's name before its code
 * is loaded is UNSUPPORTED, saying to await {@link loadDataTypes} first.
 */
export function parseDataTypeName(input: unknown): DataType {
  if (!rareTypesLoaded() && commonDataType(input) === null) {
    throw new UnsupportedError(`${typeof input === "string" ? JSON.stringify(input) : "this data type"} is not a numeric, string or bytes type, whose code a page loads with the first array naming one: await loadDataTypes() first`);
  }
  return parseDataType(input);
}

/** The keys whose values are data types: v3's and v2's, and the numcodecs filters' own. */
const TYPE_KEYS = new Set(["data_type", "dtype", "astype", "encode_dtype", "decode_dtype"]);

/**
 * Whether any data type in the document (codecs' and consolidated nodes' included; attributes
 * left out) is one commonDataType does not parse, or the document (or options) has v2 filters,
 * which v2-filters.ts turns into an element type and codecs, or a rectilinear chunk grid. An unknown or broken one counts: its error
 * comes from rare-types.ts, as it always did.
 */
function namesRareType(v: unknown): boolean {
  if (Array.isArray(v)) return v.some(namesRareType);
  if (!isJsonObject(v)) return false;
  for (const [key, value] of Object.entries(v)) {
    // A node's attributes; but a node named so (consolidated metadata, a model's members) is a node document.
    if ((key === "attributes" || key.endsWith(".zattrs")) && !(isJsonObject(value) && typeof value.zarr_format === "number")) continue;
    if (TYPE_KEYS.has(key) && commonDataType(value) === null) return true;
    // A v2 array's filters (v2-filters.ts, with the rare types: what a `|O` array holds, the filters' codecs).
    if (key === "filters" && Array.isArray(value) && value.length > 0) return true;
    // A rectilinear chunk grid (rectilinear.ts, with the rare types).
    if (key === "chunk_grid" && isJsonObject(value) && value.name === "rectilinear") return true;
    if (namesRareType(value)) return true;
  }
  return false;
}
