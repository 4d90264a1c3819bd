/** Text forms of sizes and shapes, shared by the CLI, the copy engine and the hierarchy (which must not import the CLI). */

/** A byte count as people read it: `512 B`, `1.5 KiB`, `12 MiB`. */
export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ["KiB", "MiB", "GiB", "TiB"];
  let v = n / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v < 10 ? v.toFixed(1) : Math.round(v)} ${units[i]}`;
}

/** A shape as Python prints a tuple: `(100,)`, `(3, 4)`, `()`. */
export function tuple(xs: readonly number[]): string {
  return xs.length === 1 ? `(${xs[0]},)` : `(${xs.join(", ")})`;
}
