"""The NetCDF/HDF5 peer of the archival tests: writes source files with xarray, netCDF4 and h5py,
and checks what parzarr made of them with the same libraries.

  make DIR              write the source files into DIR
  compare SRC DST G...  xarray.open_dataset(SRC, group=G) is identical to xarray.open_zarr(DST, group=G)
  values SRC            every dataset's values (h5py, or netCDF4 for NetCDF-3) as JSON, by path
  chunks SRC            every chunked dataset's chunk byte ranges (h5py get_chunk_info), by path
"""
import json
import sys

import numpy as np


def make(d):
    import h5py
    import netCDF4
    import xarray as xr

    # NetCDF-4 by xarray: chunked with zlib and shuffle, zlib alone, contiguous, strings,
    # CF attributes (units, packing, time units), edge chunks, a group.
    t = np.arange(7)
    ds = xr.Dataset(
        {
            "temp": (("time", "lat", "lon"), np.random.default_rng(1).random((7, 5, 6)).astype("f4"),
                     {"units": "K", "long_name": "air temperature", "valid_range": [150.0, 350.0]}),
            "count": (("lat", "lon"), np.arange(30, dtype="i4").reshape(5, 6), {"flag": np.int16(3)}),
            "big": (("time", "lat"), np.arange(35, dtype="i8").reshape(7, 5) * 10**12),
            "packed": (("time",), np.array([1.5, 2.25, np.nan, 4.0, 5.5, 6.0, 7.75])),
            "station": (("lat",), np.array(["Oslo", "Ås", "", "Bergen-Nord", "x"], dtype=object)),
            "code": (("lat",), np.array([b"ab", b"cde", b"f", b"", b"ghij"], dtype="S4")),
            "day": (("time",), np.array("2000-01-01", dtype="datetime64[ns]") + np.arange(7) * np.timedelta64(1, "D")),
            "scalar": ((), np.float64(2.5), {"note": "zero-dimensional"}),
            "field": (("time", "y", "x"), np.random.default_rng(2).normal(size=(7, 40, 50)).astype("f8")),
        },
        coords={"lat": np.linspace(-10, 10, 5), "lon": np.arange(6.0), "time": t},
        attrs={"title": "parzarr archival test", "version": 3, "history": "made by netcdf_peer.py"},
    )
    ds.to_netcdf(f"{d}/cf.nc", engine="netcdf4", encoding={
        "temp": {"zlib": True, "shuffle": True, "complevel": 4, "chunksizes": (3, 2, 4), "_FillValue": -999.0},
        "count": {"zlib": True, "shuffle": False, "chunksizes": (2, 6)},
        "big": {"zlib": False, "chunksizes": (4, 5)},
        "packed": {"dtype": "i2", "scale_factor": 0.25, "add_offset": 1.0, "_FillValue": -1},
        "day": {"units": "days since 2000-01-01"},
        "field": {"zlib": True, "shuffle": True, "chunksizes": (2, 15, 20)},
    })
    grp = xr.Dataset({"wind": (("step", "lat"), np.arange(15.0).reshape(3, 5), {"units": "m s-1"})},
                     coords={"step": [0, 6, 12]}, attrs={"centre": "test"})
    grp.to_netcdf(f"{d}/cf.nc", mode="a", group="forecast", engine="netcdf4",
                  encoding={"wind": {"zlib": True, "chunksizes": (1, 5)}})
    sub = xr.Dataset({"level": (("k",), np.arange(4, dtype="f4"))})
    sub.to_netcdf(f"{d}/cf.nc", mode="a", group="forecast/deep", engine="netcdf4")

    # NetCDF-3 classic: a record (unlimited) dimension, char data, several record variables.
    with netCDF4.Dataset(f"{d}/classic.nc", "w", format="NETCDF3_CLASSIC") as f:
        f.createDimension("time", None)
        f.createDimension("x", 4)
        f.createDimension("nchar", 3)
        f.title = "classic"
        f.setncattr("numbers", np.array([1, 2, 3], dtype="i2"))
        x = f.createVariable("x", "f8", ("x",))
        x[:] = [0.5, 1.5, 2.5, 3.5]
        x.units = "m"
        v = f.createVariable("v", "f4", ("time", "x"), fill_value=-1.0)
        v[0:5, :] = np.arange(20, dtype="f4").reshape(5, 4)
        v[2, 1] = np.ma.masked
        s = f.createVariable("s", "i2", ("time",))
        s[0:5] = [1, -2, 3, -4, 5]
        c = f.createVariable("name", "S1", ("x", "nchar"))
        c[:] = netCDF4.stringtochar(np.array(["abc", "de", "f", ""], dtype="S3"))
        b = f.createVariable("b", "i1", ("x",))
        b[:] = [-1, 0, 1, 127]

    # HDF5 by h5py: no dimension scales, a fixed-length string, a compound (unsupported), groups.
    with h5py.File(f"{d}/plain.h5", "w") as f:
        f.attrs["origin"] = "h5py"
        f.create_dataset("grid", data=np.arange(120, dtype="<u2").reshape(10, 12), chunks=(4, 5), compression="gzip", shuffle=True)
        f.create_dataset("flat", data=np.linspace(0, 1, 9))
        g = f.create_group("inner")
        g.attrs["count"] = 2
        g.create_dataset("labels", data=np.array([b"one", b"two", b"three"], dtype="S5"))
    # What a reference document cannot describe: a fletcher32 checksum filter; HDF5 1.10's chunk
    # indexes (libver latest). And a compact dataset, which is inlined.
    with h5py.File(f"{d}/refusals.h5", "w") as f:
        f.create_dataset("checked", data=np.arange(20.0), chunks=(5,), fletcher32=True)
        f.create_dataset("fine", data=np.arange(6, dtype=">i4"), chunks=(4,), compression="gzip")
        dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
        dcpl.set_layout(h5py.h5d.COMPACT)
        space = h5py.h5s.create_simple((3,))
        h5py.h5d.create(f.id, b"tiny", h5py.h5t.STD_I16LE, space, dcpl=dcpl).write(h5py.h5s.ALL, h5py.h5s.ALL, np.array([7, 8, 9], dtype="<i2"))
    with h5py.File(f"{d}/latest.h5", "w", libver="latest") as f:
        f.create_dataset("x", data=np.arange(12.0), chunks=(4,))
    with h5py.File(f"{d}/compound.h5", "w") as f:
        f.create_dataset("ok", data=np.arange(4.0))
        f.create_dataset("rec", data=np.zeros(3, dtype=[("a", "i4"), ("b", "f8")]))


def compare(src, dst, groups):
    import xarray as xr

    for g in groups:
        group = None if g == "/" else g
        a = xr.open_dataset(src, group=group).load()
        b = xr.open_zarr(dst, group=group, consolidated=False).load()
        # identical: same variables, coordinates, dimension names, values (NaN equal to NaN),
        # dtypes after CF decoding, and attributes of every variable and of the group.
        xr.testing.assert_identical(a, b)
        for k in a.variables:
            assert a[k].dtype == b[k].dtype, (g, k, a[k].dtype, b[k].dtype)
            # The stored type under CF decoding (int16 packed values stay int16); strings are
            # str in NetCDF-4 and object in Zarr, both variable-length.
            if a[k].dtype.kind != "O":
                assert a[k].encoding.get("dtype") == b[k].encoding.get("dtype"), (g, k, a[k].encoding, b[k].encoding)
    print("ok")


def values(src):
    out = {}
    with open(src, "rb") as f:
        netcdf3 = f.read(3) == b"CDF"
    if netcdf3:
        import netCDF4
        with netCDF4.Dataset(src) as f:
            f.set_auto_maskandscale(False)
            for k, v in f.variables.items():
                out[k] = np.asarray(v[...]).tolist()
    else:
        import h5py

        def visit(name, obj):
            if isinstance(obj, h5py.Dataset) and obj.dtype.kind in "iufS":
                a = obj[()]
                out[name] = [x.decode("latin-1") for x in a.ravel()] if a.dtype.kind == "S" else np.asarray(a).ravel().tolist()

        with h5py.File(src, "r") as f:
            f.visititems(visit)
    print(json.dumps(out, default=lambda x: None).replace("NaN", "null"))


def chunks(src):
    import h5py

    out = {}

    def visit(name, obj):
        if isinstance(obj, h5py.Dataset):
            dsid = obj.id
            if obj.chunks is None:
                out[name] = {"contiguous": [dsid.get_offset(), dsid.get_storage_size()]}
            else:
                infos = [dsid.get_chunk_info(i) for i in range(dsid.get_num_chunks())]
                out[name] = {".".join(str(o // c) for o, c in zip(i.chunk_offset, obj.chunks)): [i.byte_offset, i.size] for i in infos}

    with h5py.File(src, "r") as f:
        f.visititems(visit)
    print(json.dumps(out))


if __name__ == "__main__":
    cmd = sys.argv[1]
    if cmd == "make":
        make(sys.argv[2])
    elif cmd == "compare":
        compare(sys.argv[2], sys.argv[3], sys.argv[4:])
    elif cmd == "values":
        values(sys.argv[2])
    elif cmd == "chunks":
        chunks(sys.argv[2])
    else:
        sys.exit(f"unknown command {cmd}")
