/**
 * The zarr-python side of the comparison, run as `python3 -c SCRIPT CONFIG_JSON`. It times its own
 * whole-array reads into fresh memory (`z[...]`) and into one reused array
 * (`get_basic_selection(..., out=)`), each one warm-up then `repeats`, and writes (`repeats`, each into a fresh
 * directory with the same compressor) and prints one JSON object. With `"outOnly": true` in the
 * config it times only the reads into the reused array (bench/scale.ts). Kept as a string so that the
 * compiled package (which ships only JavaScript) can still run it.
 */
export const ZARR_PYTHON_BENCH = String.raw`
import json, os, shutil, sys, time
import numpy as np
import zarr, numcodecs

cfg = json.loads(sys.argv[1])
out = {"zarr": zarr.__version__, "numcodecs": numcodecs.__version__, "blosc_threads": None, "results": []}
try:
    from numcodecs import blosc
    out["blosc_threads"] = blosc.get_nthreads() if hasattr(blosc, "get_nthreads") else None
except Exception:
    pass

out_only = bool(cfg.get("outOnly"))
for case in cfg["cases"]:
    src = zarr.open(case["path"], mode="r")
    reads = []
    for i in range(0 if out_only else cfg["repeats"] + 1):
        t = time.perf_counter()
        data = src[...]
        dt = time.perf_counter() - t
        if i > 0:
            reads.append(dt)
    buf = np.empty(src.shape, dtype=src.dtype)
    reads_out = []
    for i in range(cfg["repeats"] + 1):
        t = time.perf_counter()
        src.get_basic_selection(Ellipsis, out=buf)
        dt = time.perf_counter() - t
        if i > 0:
            reads_out.append(dt)
    if out_only:
        data = buf
    same = bool(np.array_equal(buf, data))
    del buf
    writes = []
    for i in range(0 if out_only else cfg["repeats"]):
        target = case["writePath"]
        shutil.rmtree(target, ignore_errors=True)
        t = time.perf_counter()
        dst = zarr.open(target, mode="w", shape=src.shape, chunks=src.chunks, dtype=src.dtype,
                        compressor=src.compressor, fill_value=src.fill_value)
        dst[...] = data
        writes.append(time.perf_counter() - t)
    shutil.rmtree(case["writePath"], ignore_errors=True)
    out["results"].append({"codec": case["codec"], "read": reads, "readOut": reads_out, "outSame": same, "write": writes,
                           "checksum": float(np.float64(data[::97, ::89].astype(np.float64).sum()))})
    del data

print(json.dumps(out))
`;
