/**
 * One node of the hierarchy listing that `parzarr view` serves (`tree.json`) and the viewer page
 * draws; the same shape when the page builds it from consolidated metadata itself.
 */
export interface ListedNode {
  path: string;
  kind: "array" | "group" | "unreadable";
  shape?: number[];
  dtype?: string;
  error?: string;
  /** The array's facts as `parzarr info --json` gives them. */
  info?: unknown;
}
