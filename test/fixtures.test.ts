/**
 * Every array that zarr-python, z5py and zarrs wrote in test/fixtures reads exactly as its
 * manifest says; arrays that need a later release fail with a typed error that names the codec or
 * data type. Which is which is decided from the raw metadata, so both halves can fail.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { FileSystemStore, openArray, ZarrError, ZipStore } from "../src/index.js";
import { FIXTURES, assertMatchesManifest, assertValues, laterFeature, loadManifest, zipEntryPath } from "./helpers/manifest.js";

const COLLECTIONS = ["zarr-python-2.13", "zarr-python-legacy", "zarr-implementations", "zarrs"];

for (const collection of COLLECTIONS) {
  const dir = join(FIXTURES, collection);
  describe(`fixtures written by ${collection}`, () => {
    for (const entry of loadManifest(dir)) {
      const later = laterFeature(dir, entry);
      if (entry.unsupported_ok && later === null) {
        // Readable only with a hint the metadata lacks: the dedicated test below gives it.
        test(`${entry.path}: ${entry.note ?? "optional"}`, { skip: "covered by its own test" }, () => {});
        continue;
      }
      const zipped = zipEntryPath(entry);
      if (zipped) {
        test(`${entry.path} reads from its zip archive as its manifest says`, async () => {
          const store = new ZipStore(join(dir, zipped.zip), { mode: "r" });
          try {
            await assertMatchesManifest(store, { ...entry, path: zipped.path });
          } finally {
            await store.close();
          }
        });
        continue;
      }
      test(`${entry.path}${later ? ` fails clearly: needs ${later}` : " reads as its manifest says"}`, async () => {
        const store = new FileSystemStore(dir, { readOnly: true });
        if (later) {
          await assert.rejects(
            async () => {
              const arr = await openArray(store, { path: entry.path, mode: "r" });
              await arr.get();
            },
            (err: unknown) => {
              assert.ok(err instanceof ZarrError, `expected a ZarrError, got ${String(err)}`);
              assert.ok(err.code === "UNKNOWN_CODEC" || err.code === "UNSUPPORTED", `code ${err.code}: ${err.message}`);
              const name = later.replace(/^"|"$/g, "").replace(/^numcodecs\./, "");
              assert.ok(err.message.includes(name.split("[")[0]) , `"${err.message}" should name ${name}`);
              return true;
            },
          );
          return;
        }
        await assertMatchesManifest(store, entry, dir);
      });
    }
  });
}

test("a legacy nested array reads its chunks when told the separator", async () => {
  const dir = join(FIXTURES, "zarr-python-legacy");
  const entry = loadManifest(dir).find((e) => e.path === "fixture/nested_legacy")!;
  const arr = await openArray(new FileSystemStore(dir, { readOnly: true }), {
    path: entry.path,
    mode: "r",
    dimensionSeparator: "/",
  });
  assertValues(arr, await arr.get(), entry);
});

test("a zarrs datetime64[ms] array without recorded values reads as millisecond counts, one day apart", async () => {
  // The manifest records no values for it. What can be checked: the type comes from the v3
  // object form, and the counts are valid dates (no NaT) evenly one day apart, as a date column.
  const arr = await openArray(new FileSystemStore(join(FIXTURES, "zarrs"), { readOnly: true }), { path: "issue_287.zarr/meta/date", mode: "r" });
  assert.deepEqual(arr.dataType, { kind: "datetime", name: "numpy.datetime64", unit: "ms", scaleFactor: 1, itemSize: 8, endian: "little" });
  const { data } = (await arr.get()) as { data: BigInt64Array };
  assert.equal(data.length, 3);
  assert.ok(data.every((v) => v !== -(2n ** 63n)));
  assert.deepEqual([data[1] - data[0], data[2] - data[1]], [86_400_000n, 86_400_000n]);
});
