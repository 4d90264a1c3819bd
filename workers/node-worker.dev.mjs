// Source-tree entry for the piscina worker (used when parzarr runs from its .ts sources under
// tsx): Node 20 does not apply an inherited `--import tsx` inside worker threads, so the worker
// registers tsx itself before loading the TypeScript entry. The build uses dist/workers/*.js.
import { register } from "tsx/esm/api";

register();
const { default: handle } = await import("./node-worker.ts");
export default handle;
