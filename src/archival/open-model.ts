/**
 * Which reader a file needs, from its first bytes (a `.nc` file may be NetCDF-3 or NetCDF-4, which
 * is HDF5), and the file extensions parzarr takes as archives.
 */
import { closeSync, readSync } from "node:fs";
import { openSourceFile } from "./source-file.js";
import { SourceFileError } from "../errors.js";
import { HDF5_SIGNATURE, openHdf5Model } from "./hdf5-model.js";
import type { ArchiveModel } from "./model.js";
import { NETCDF3_MAGIC, openNetcdf3Model } from "./netcdf3.js";

/** File names parzarr reads as NetCDF or HDF5 archives. */
export const ARCHIVE_EXTENSIONS = /\.(nc|nc3|nc4|netcdf|cdf|h5|hdf5|he5)$/i;

/** Whether a path names a NetCDF or HDF5 file by its extension (`.nc`, `.h5`, `.hdf5`...): the files openArchive reads. */
export function isArchivePath(path: string): boolean {
  return ARCHIVE_EXTENSIONS.test(path);
}

function startsWith(bytes: Uint8Array, at: number, sig: number[]): boolean {
  return sig.every((b, i) => bytes[at + i] === b);
}

/** "hdf5" or "netcdf3" from the file's signature (HDF5 may sit after a user block of 512·2^k bytes). */
export function sniffFormat(path: string): "hdf5" | "netcdf3" {
  const fd = openSourceFile(path);
  try {
    const head = new Uint8Array(8);
    if (readSync(fd, head, 0, 8, 0) >= 4 && startsWith(head, 0, NETCDF3_MAGIC)) return "netcdf3";
    for (let at = 0; at < 2 ** 30; at = at === 0 ? 512 : at * 2) {
      if (readSync(fd, head, 0, 8, at) < 8) break;
      if (startsWith(head, 0, HDF5_SIGNATURE)) return "hdf5";
    }
  } finally {
    closeSync(fd);
  }
  throw new SourceFileError(`${path}: neither a NetCDF-3 file nor HDF5 (NetCDF-4): no CDF or HDF5 signature`);
}

export async function openArchiveModel(path: string): Promise<ArchiveModel> {
  return sniffFormat(path) === "hdf5" ? openHdf5Model(path) : openNetcdf3Model(path);
}
