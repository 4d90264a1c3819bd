"""Writes test/fixtures/ml-dtypes/tables.json: what ml_dtypes (the implementation the
zarr-extensions data-type pages point to) decodes every code of each sub-byte and 8-bit type to,
and which code it rounds chosen float64 values to (every value, every midpoint between
neighbours and the floats either side of it, overflow boundaries, zeros, infinities, NaN).

Run: PYTHONPATH=<unpacked ml_dtypes wheel> python3 test/peers/ml_dtypes_tables.py OUT.json
"""
import json
import math
import sys

import ml_dtypes
import numpy as np

FLOATS = ["float8_e3m4", "float8_e4m3", "float8_e4m3fn", "float8_e4m3fnuz", "float8_e4m3b11fnuz",
          "float8_e5m2", "float8_e5m2fnuz", "float8_e8m0fnu", "float6_e2m3fn", "float6_e3m2fn",
          "float4_e2m1fn"]
INTS = ["int2", "int4", "uint2", "uint4"]
BITS = {"float6_e2m3fn": 6, "float6_e3m2fn": 6, "float4_e2m1fn": 4}


def text(x):
    x = float(x)
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    if x == 0:
        return "-0" if math.copysign(1, x) < 0 else "0"
    return repr(x)


def float_table(name):
    t = getattr(ml_dtypes, name)
    n = 1 << BITS.get(name, 8)
    values = np.arange(n, dtype=np.uint8).view(t).astype(np.float64)
    finite = sorted({float(v) for v in values if math.isfinite(v)})
    top = finite[-1]
    beyond = top * 2 if name == "float8_e8m0fnu" else top + (top - finite[-2])
    inputs = set(finite) | {beyond, (top + beyond) / 2, top * 1.01, 1e30, 1e300, 5e-324, 1e-300}
    for a, b in zip(finite, finite[1:] + [beyond]):
        mid = (a + b) / 2
        inputs |= {mid, math.nextafter(mid, -math.inf), math.nextafter(mid, math.inf)}
    small = min(v for v in finite if v > 0)
    inputs |= {small / 2, small / 4, small * 0.75, math.nextafter(small / 2, math.inf)}
    inputs |= {-x for x in list(inputs)}
    ordered = sorted(inputs) + [0.0, -0.0, math.inf, -math.inf, math.nan]
    arr = np.array(ordered, dtype=np.float64)
    codes = arr.astype(t).view(np.uint8)
    return {
        "bits": BITS.get(name, 8),
        "decode": [text(v) for v in values],
        "encode": {"inputs": [text(v) for v in arr], "codes": [int(c) for c in codes]},
    }


def int_table(name):
    t = getattr(ml_dtypes, name)
    info = ml_dtypes.iinfo(t)
    decoded = np.arange(256, dtype=np.uint8).view(t).astype(np.int64)
    values = np.arange(int(info.min), int(info.max) + 1, dtype=np.int64)
    return {
        "min": int(info.min),
        "max": int(info.max),
        "decode": [int(v) for v in decoded],
        "encode": {"values": [int(v) for v in values], "codes": [int(c) for c in values.astype(t).view(np.uint8)]},
    }


out = {"ml_dtypes": ml_dtypes.__version__, "numpy": np.__version__}
out.update({name: float_table(name) for name in FLOATS})
out.update({name: int_table(name) for name in INTS})
with open(sys.argv[1], "w") as f:
    json.dump(out, f, separators=(",", ":"))
    f.write("\n")
