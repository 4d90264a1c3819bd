"""Writes an HDF5 file (h5py) and a NetCDF-4 file (netCDF4), and kerchunk reference documents for
them whose byte ranges come from HDF5's own chunk index (h5py's low-level get_chunk_info and
get_offset), plus the values h5py reads, for test/reference-store.test.ts.

usage: kerchunk_refs.py OUTDIR

OUTDIR gets data.h5, data.nc, refs-v0.json (version 0: targets relative to the document, one
absolute path, one file: URL, base64 inline data), refs-v1.json (version 1: templates for the
targets, gen for the contiguous variables) and expected.json (per array: shape, dtype, and the
values as h5py reads them, in a little-endian .bin file).
"""
import base64
import json
import os
import sys

import h5py
import netCDF4
import numpy as np

out = sys.argv[1]
h5_path = os.path.join(out, "data.h5")
nc_path = os.path.join(out, "data.nc")
rng = np.random.default_rng(18)

with h5py.File(h5_path, "w") as f:
    f.attrs["title"] = "parzarr kerchunk fixture"
    # Chunked, zlib + shuffle, edge chunks on both axes.
    f.create_dataset("temp", data=(rng.standard_normal((37, 50)) * 10).astype("<f4"), chunks=(10, 16),
                     compression="gzip", compression_opts=4, shuffle=True)
    # Chunked, zlib without shuffle, many small chunks (the merged-range case).
    f.create_dataset("counts", data=rng.integers(-3000, 3000, (100,), dtype="<i2"), chunks=(7,),
                     compression="gzip", compression_opts=1)
    # Contiguous (no chunks, no filters).
    f.create_dataset("grid", data=np.arange(24 * 5, dtype="<f8").reshape(24, 5) * 0.5)
    g = f.create_group("sub")
    g.attrs["note"] = "a group"
    g.create_dataset("flags", data=rng.integers(0, 255, (64,), dtype="u1"), chunks=(16,), compression="gzip")

with netCDF4.Dataset(nc_path, "w") as nc:
    nc.createDimension("time", None)
    nc.createDimension("lat", 12)
    nc.createDimension("lon", 20)
    lat = nc.createVariable("lat", "f8", ("lat",), contiguous=True)
    lat.units = "degrees_north"
    lat[:] = np.linspace(-55, 55, 12)
    pr = nc.createVariable("pr", "f4", ("time", "lat", "lon"), zlib=True, shuffle=True, complevel=5,
                           chunksizes=(2, 5, 8))
    pr.units = "kg m-2 s-1"
    pr.long_name = "precipitation"
    pr[0:5] = rng.random((5, 12, 20)).astype("f4")


def filters_of(ds):
    """HDF5's filter pipeline as numcodecs filters, in order (as kerchunk writes them)."""
    dcpl = ds.id.get_create_plist()
    filters = []
    for k in range(dcpl.get_nfilters()):
        code, _flags, values, _name = dcpl.get_filter(k)
        if code == h5py.h5z.FILTER_SHUFFLE:
            filters.append({"id": "shuffle", "elementsize": ds.dtype.itemsize})
        elif code == h5py.h5z.FILTER_DEFLATE:
            filters.append({"id": "zlib", "level": int(values[0])})
        else:
            raise SystemExit(f"{ds.name}: filter {code} has no numcodecs equivalent here")
    return filters or None


def fill_of(ds):
    v = ds.fillvalue
    return float(v) if ds.dtype.kind == "f" else int(v)


def zarray(ds, chunks):
    return json.dumps({
        "zarr_format": 2, "shape": list(ds.shape), "chunks": list(chunks), "dtype": ds.dtype.str,
        "compressor": None, "filters": filters_of(ds), "fill_value": fill_of(ds), "order": "C",
    })


def chunk_ranges(ds):
    """{chunk key suffix: (offset, size)} from the file's chunk index (or its contiguous block)."""
    dsid = ds.id
    if ds.chunks is None:
        return {".".join("0" * ds.ndim): (dsid.get_offset(), dsid.get_storage_size())}
    ranges = {}
    for i in range(dsid.get_num_chunks()):
        info = dsid.get_chunk_info(i)
        assert info.filter_mask == 0, f"{ds.name}: chunk {i} skipped a filter"
        idx = [o // c for o, c in zip(info.chunk_offset, ds.chunks)]
        ranges[".".join(map(str, idx))] = (info.byte_offset, info.size)
    return ranges


expected = {}


def remember(name, ds):
    data = np.ascontiguousarray(ds[...])
    file = name.replace("/", "_") + ".bin"
    data.astype(data.dtype.newbyteorder("<")).tofile(os.path.join(out, file))
    expected[name] = {"shape": list(data.shape), "dtype": data.dtype.str, "file": file}


def attrs_json(attrs, dims=None):
    doc = {k: (v.item() if hasattr(v, "item") and np.ndim(v) == 0 else v.tolist() if hasattr(v, "tolist") else v)
           for k, v in attrs.items()}
    doc = {k: (v.decode() if isinstance(v, bytes) else v) for k, v in doc.items()}
    if dims is not None:
        doc["_ARRAY_DIMENSIONS"] = dims
    return json.dumps(doc)


v0 = {".zgroup": json.dumps({"zarr_format": 2})}
v1_refs = {".zgroup": json.dumps({"zarr_format": 2})}
v1_gen = []

with h5py.File(h5_path, "r") as f:
    v0[".zattrs"] = v1_refs[".zattrs"] = attrs_json(f.attrs)
    for name in ["temp", "counts", "sub/flags"]:
        ds = f[name]
        remember(name, ds)
        v0[f"{name}/.zarray"] = v1_refs[f"{name}/.zarray"] = zarray(ds, ds.chunks)
        v0[f"{name}/.zattrs"] = v1_refs[f"{name}/.zattrs"] = attrs_json(ds.attrs)
        for suffix, (off, size) in chunk_ranges(ds).items():
            v0[f"{name}/{suffix}"] = ["data.h5", off, size]
            v1_refs[f"{name}/{suffix}"] = ["{{h5}}", off, size]
    v0["sub/.zgroup"] = v1_refs["sub/.zgroup"] = json.dumps({"zarr_format": 2})
    v0["sub/.zattrs"] = v1_refs["sub/.zattrs"] = attrs_json(f["sub"].attrs)
    # Inline data, as kerchunk inlines small chunks: the first flags chunk as base64.
    off, size = chunk_ranges(f["sub/flags"])["0"]
    with open(h5_path, "rb") as raw:
        raw.seek(off)
        inline = "base64:" + base64.b64encode(raw.read(size)).decode()
    v0["sub/flags/0"] = v1_refs["sub/flags/0"] = inline

    # The contiguous dataset: v0 as one chunk through an absolute path; v1 as one chunk per row,
    # generated from the block's offset (gen with a {stop} range).
    grid = f["grid"]
    remember("grid", grid)
    (goff, gsize), = chunk_ranges(grid).values()
    v0["grid/.zarray"] = zarray(grid, grid.shape)
    v0["grid/0.0"] = [os.path.abspath(h5_path), goff, gsize]
    row = grid.shape[1] * grid.dtype.itemsize
    v1_refs["grid/.zarray"] = zarray(grid, (1, grid.shape[1]))
    v1_gen.append({"key": "grid/{{i}}.0", "url": "{{h5}}", "offset": "{{ " + str(goff) + " + i * " + str(row) + " }}",
                   "length": str(row), "dimensions": {"i": {"stop": grid.shape[0]}}})

with netCDF4.Dataset(nc_path, "r") as nc, h5py.File(nc_path, "r") as f:
    for name in ["pr", "lat"]:
        ds = f[name]
        var = nc.variables[name]
        remember(name, ds)
        dims = list(var.dimensions)
        attrs = {k: var.getncattr(k) for k in var.ncattrs() if k != "_FillValue"}
        v0[f"{name}/.zattrs"] = v1_refs[f"{name}/.zattrs"] = attrs_json(attrs, dims)
        ranges = chunk_ranges(ds)
        if ds.chunks is not None:
            v0[f"{name}/.zarray"] = v1_refs[f"{name}/.zarray"] = zarray(ds, ds.chunks)
            for suffix, (off, size) in ranges.items():
                v0[f"{name}/{suffix}"] = ["file://" + os.path.abspath(nc_path), off, size]
                v1_refs[f"{name}/{suffix}"] = ["{{nc}}", off, size]
        else:
            (off, size), = ranges.values()
            v0[f"{name}/.zarray"] = zarray(ds, ds.shape)
            v0[f"{name}/0"] = ["data.nc", off, size]
            # v1: chunks of 4 values, generated over a list of indices.
            n = 4
            v1_refs[f"{name}/.zarray"] = zarray(ds, (n,))
            step = n * ds.dtype.itemsize
            v1_gen.append({"key": name + "/{{j}}", "url": "{{nc}}", "offset": "{{ " + str(off) + " + j * " + str(step) + " }}",
                           "length": "{{ " + str(step) + " }}", "dimensions": {"j": list(range(ds.shape[0] // n))}})

v1 = {"version": 1, "templates": {"h5": "data.h5", "nc": "data.nc"}, "gen": v1_gen, "refs": v1_refs}
with open(os.path.join(out, "refs-v0.json"), "w") as fh:
    json.dump(v0, fh)
with open(os.path.join(out, "refs-v1.json"), "w") as fh:
    json.dump(v1, fh)
with open(os.path.join(out, "expected.json"), "w") as fh:
    json.dump(expected, fh)
