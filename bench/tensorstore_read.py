# TensorStore reading the arrays of `npm run bench:scale` (and bench:compare): each v2 array into a
# reused numpy `out` (ts.array(out) as the target of a copy from the zarr array) and into fresh memory
# (read().result()), medians; prints one JSON line per codec, then all of them.
#   python3 bench/tensorstore_read.py .bench-data 5      # the folder bench:scale's --dir names
# TensorStore is not a dependency: pip install tensorstore (docs/benchmarks.md has its figures).
import glob, json, os, statistics, sys, time
import numpy as np
import tensorstore as ts
root = sys.argv[1]; repeats = int(sys.argv[2])
base = sorted(glob.glob(os.path.join(root, "walks-*")))[0]
res = {"tensorstore": getattr(ts, "__version__", "?"), "numpy": np.__version__, "cores": os.cpu_count(), "results": []}
for codec in ["blosc-lz4", "blosc-zstd", "zlib", "raw"]:
    path = os.path.join(base, codec + ".zarr")
    src = ts.open({"driver": "zarr", "kvstore": {"driver": "file", "path": path}, "open": True,
                   "context": {"cache_pool": {"total_bytes_limit": 0}}}, read=True).result()
    out = np.empty(src.shape, dtype=src.dtype.numpy_dtype)
    dst = ts.array(out, copy=False, write=True)
    def into():
        dst.write(src).result()
    def fresh():
        return src.read().result()
    into(); fresh()
    xo, xf = [], []
    for _ in range(repeats):
        t = time.perf_counter(); into(); xo.append(time.perf_counter() - t)
        t = time.perf_counter(); a = fresh(); xf.append(time.perf_counter() - t); del a
    r = {"codec": codec, "into_out_ms": 1000 * statistics.median(xo), "fresh_ms": 1000 * statistics.median(xf),
         "sum": float(out.astype(np.float64).sum())}
    res["results"].append(r)
    print(json.dumps(r), flush=True)
print(json.dumps(res))
