/**
 * `parzarr/zom`: the zod schemas of Zarr Object Models (ZEP 6) and of the xarray convention. A
 * subpath of its own so that importing the library does not load zod (≈ 0.3 s of start-up); the
 * functions that take or check models (`fromZarr`, `toZarr`, `diffZarr`, `validateZarr`) stay in
 * the main entry and load zod only when a model is checked.
 * @module parzarr/zom
 */
export {
  zomSchema,
  nodeSpecSchema,
  attributesSchema,
  arraySpecV2Schema,
  groupSpecV2Schema,
  arraySpecV3Schema,
  groupSpecV3Schema,
  xarraySchema,
  xarrayAttrsSchema,
  xarrayArraySpecV2Schema,
  xarrayArraySpecV3Schema,
} from "./metadata/zom-schema.js";
export { zomIssues, formatZomIssue } from "./metadata/zom-issues.js";
export type { ZomIssue } from "./metadata/zom-issues.js";
export type { XarrayAttrs, XarrayArraySpecV2, XarrayGroupSpecV2, XarrayArraySpecV3, XarrayGroupSpecV3 } from "./metadata/zom-schema.js";
