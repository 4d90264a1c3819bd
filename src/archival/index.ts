/**
 * NetCDF and HDF5 archives as Zarr (Node only): `openArchive` reads one as a read-only Zarr v2
 * hierarchy (for `copy`, `parzarr cp` and any reader), `referencesFor` writes its kerchunk
 * reference document.
 */
import type { Group } from "../hierarchy/group.js";
import { openGroup } from "../hierarchy/open.js";
import { ArchiveStore } from "./archive-store.js";

export { ArchiveStore } from "./archive-store.js";
export { isArchivePath } from "./open-model.js";
export { referencesFor, type ReferenceOptions, type ReferenceResult } from "./refs.js";

/**
 * Opens a NetCDF-3, NetCDF-4 or HDF5 file as a read-only Zarr v2 group: each variable an array
 * with the file's chunks, `_ARRAY_DIMENSIONS` and `_FillValue` as the fill value. Pass it to
 * `copy`/`copyAll` to convert the file. Call `store.close()` (`(group.store as ArchiveStore)`)
 * to release the file.
 */
export async function openArchive(path: string): Promise<Group> {
  const store = new ArchiveStore(path);
  await store.open();
  return openGroup(store);
}
