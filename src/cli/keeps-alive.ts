/**
 * Whether this process opened something that keeps its event loop alive for good (an Icechunk
 * repository: its WebAssembly build's dispatchers never stop), so main.ts exits by itself once
 * the output is flushed. Its own module, importing nothing: `parzarr --help` loads no library code.
 */
let alive = false;
export const markKeepsAlive = (): void => void (alive = true);
export const keepsAlive = (): boolean => alive;
