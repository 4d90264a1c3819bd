/**
 * Random zarrita selections and a reader of zarrita-shaped results, for the parzarr/zarrita
 * tests in Node (test/zarrita-adapter.test.ts) and in Chromium (test/browser/zarrita-page.ts).
 */
import * as zarr from "zarrita";

export type ZarritaSelection = (number | zarr.Slice | null)[] | null;

/**
 * A random zarrita selection: null, or per dimension null, an index (maybe negative) or a slice
 * (empty ones too when `empty`: zarrita throws on those, parzarr reads them as empty). Never
 * fewer items than the rank: zarrita does not fill in the missing dimensions (it reads the wrong
 * chunks), where parzarr selects them whole as numpy does.
 */
export function randomSelection(shape: number[], r: (n: number) => number, empty: boolean): ZarritaSelection {
  if (r(8) === 0) return null;
  return shape.map((n) => {
    const k = r(4);
    if (k === 0) return null;
    if (k === 1) return r(2) ? r(n) : -1 - r(n);
    const maybe = (x: number) => (r(4) === 0 ? null : x);
    const start = empty ? r(n + 2) - 1 : r(n);
    const stop = empty ? r(n + 3) - 1 : start + 1 + r(n - start);
    return zarr.slice(maybe(start), maybe(stop), r(3) === 0 ? null : 1 + r(4));
  });
}

/** Every element of a zarrita-shaped result, in C order of its shape (read through its strides). */
export function elements(res: unknown): unknown[] {
  if (typeof res !== "object" || res === null || !("stride" in res)) return [res];
  const { data, shape, stride } = res as zarr.Chunk<zarr.DataType>;
  const at = (i: number) => ("get" in data ? (data as zarr.BoolArray).get(i) : (data as ArrayLike<unknown>)[i]);
  const out: unknown[] = [];
  const walk = (d: number, offset: number) => {
    if (d === shape.length) return void out.push(at(offset));
    for (let i = 0; i < shape[d]; i++) walk(d + 1, offset + i * stride[d]);
  };
  walk(0, 0);
  return out;
}
