/** What `parzarr cp` prints about a planned copy (`--dry-run`), and how it names options. */
import type { CopyPlan, CopySettings, OptionNaming } from "../copy/engine.js";
import { layoutOf } from "../hierarchy/layout.js";
import { baseName } from "../hierarchy/walk.js";
import { UsageError, type Target } from "./args.js";
import { formatBytes, tuple } from "./format.js";
import type { GridOption } from "../hierarchy/create-options.js";

/** A grid as cp names it: a regular shape as a tuple, a rectilinear one as its chunk_shapes. */
function gridText(grid: GridOption): string {
  return grid.every((n) => typeof n === "number") ? tuple(grid as number[]) : `rectilinear ${JSON.stringify(grid)}`;
}

/** cp's options are flags, and a bad one is a usage error (exit code 2). */
export const CLI_NAMING: OptionNaming = {
  option: (name) => `--${name}`,
  invalid: (message) => new UsageError(message),
};

export function describePlan(plan: CopyPlan, s: CopySettings, dest: Target): string {
  const lines: string[] = [];
  for (const g of plan.groups) lines.push(`group ${g.rel === "" ? "/" : g.rel} (v${g.zarrFormat})`);
  for (const j of plan.jobs) {
    const src = j.source;
    const l = layoutOf(src);
    const p = j.plan;
    lines.push(
      `array ${j.rel === "" ? baseName(src.path) : j.rel}: ${tuple(src.shape)} ${src.dtype}, ` +
        `v${src.zarrFormat} chunks ${tuple(l.chunks)}${l.shards ? ` shards ${tuple(l.shards)}` : ""}${src.chunkShapes ? ` grid ${gridText(src.chunkShapes)}` : ""} -> ` +
        `v${j.options.zarrFormat} ${j.unit.length ? `chunks ${gridText(j.options.chunks!)}` : "0-d"} codec ${j.codecText}`,
    );
    lines.push(
      `  ${p.count} slab(s) of ${tuple(p.slab)} = ${formatBytes(p.slabBytes)} + ${formatBytes(p.inFlightBytes)} in flight ` +
        `= ${formatBytes(p.plannedPeak)} of ${formatBytes(s.memory)}; source chunks decoded ${p.readAmplification.toFixed(2)}x`,
    );
    if (p.plannedPeak > s.memory) lines.push(`  needs ${formatBytes(p.plannedPeak)}, more than --memory ${formatBytes(s.memory)}: a real run refuses it (raise --memory)`);
  }
  for (const k of plan.skipped) lines.push(`skip ${k.rel}: ${k.reason}`);
  lines.push(`to ${dest.text}${s.resume ? " (resuming)" : ""}`);
  return lines.join("\n");
}

