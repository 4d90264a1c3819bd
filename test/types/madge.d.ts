// madge ships no types; this states the part test/import-cycles.test.ts uses.
declare module "madge" {
  interface MadgeConfig {
    baseDir?: string;
    fileExtensions?: string[];
    detectiveOptions?: Record<string, Record<string, unknown>>;
  }
  interface MadgeResult {
    /** Each cycle as the files on it, relative to baseDir. */
    circular(): string[][];
    /** Imports madge could not resolve to a file (packages, missing files). */
    warnings(): { skipped: string[] };
  }
  export default function madge(path: string | string[], config?: MadgeConfig): Promise<MadgeResult>;
}
