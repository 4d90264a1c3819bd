"""One zarr-python 2 writer of the lost-writes race (bench/lost-writes.ts).

Args: path lockdir|- writer round threads workload_json
Writes its regions with `threads` writes in flight (a thread pool; 1 = one after another) and
prints {"ms": write_time}. With a lock folder it opens the array with zarr.ProcessSynchronizer.
"""
import json
import sys
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import zarr

path, lockdir, writer, rnd, threads, workload = sys.argv[1:7]
w = json.loads(workload)
writer, rnd, threads = int(writer), int(rnd), int(threads)
sync = None if lockdir == "-" else zarr.ProcessSynchronizer(lockdir)
z = zarr.open(path, mode="r+", synchronizer=sync)


def region(r):
    start = (r * w["writers"] + writer) * w["stripe"]
    return start, start + w["stripe"]


def write(r):
    c0, c1 = region(r)
    z[0:w["rows"], c0:c1] = np.full((w["rows"], c1 - c0), rnd * 10000 + writer * 100 + r + 1, dtype="<i4")


t0 = time.perf_counter()
with ThreadPoolExecutor(max_workers=threads) as pool:
    list(pool.map(write, range(w["perWriter"])))
print(json.dumps({"ms": (time.perf_counter() - t0) * 1000}))
