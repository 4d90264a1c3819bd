/**
 * The little of S3's XML that the store reads: a ListObjectsV2 result. S3 documents are flat and
 * machine-written, so element text is picked out by name rather than with a general XML parser;
 * anything that does not look like a listing is refused, not half-read.
 */

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };

/** XML character data with its five named entities and numeric references resolved. */
export function xmlText(raw: string): string {
  return raw.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|[a-z]+);/g, (whole, name: string) => {
    if (name.startsWith("#x")) return String.fromCodePoint(parseInt(name.slice(2), 16));
    if (name.startsWith("#")) return String.fromCodePoint(parseInt(name.slice(1), 10));
    return ENTITIES[name] ?? whole;
  });
}

/** The text of every `<tag>` directly inside each `<parent>` block (or the whole document). */
function texts(xml: string, tag: string): string[] {
  const out: string[] = [];
  const re = new RegExp(`<${tag}>([^<]*)</${tag}>`, "g");
  for (let m = re.exec(xml); m !== null; m = re.exec(xml)) out.push(xmlText(m[1]!));
  return out;
}

function blocks(xml: string, tag: string): string[] {
  const out: string[] = [];
  const re = new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`, "g");
  for (let m = re.exec(xml); m !== null; m = re.exec(xml)) out.push(m[1]!);
  return out;
}

export interface ListPage {
  /** Object keys (full, bucket-relative), in the order S3 gives them (sorted). */
  keys: string[];
  /** With a delimiter: the "folders" under the prefix, each ending with the delimiter. */
  prefixes: string[];
  /** Where the next page starts, when the listing was cut short. */
  continuationToken?: string;
}

/** One page of a ListObjectsV2 answer; undefined when the body is not one. */
export function parseListPage(xml: string): ListPage | undefined {
  if (!/<ListBucketResult[\s>]/.test(xml)) return undefined;
  const keys = blocks(xml, "Contents").flatMap((b) => texts(b, "Key"));
  const prefixes = blocks(xml, "CommonPrefixes").flatMap((b) => texts(b, "Prefix"));
  const truncated = texts(xml, "IsTruncated")[0] === "true";
  const token = texts(xml, "NextContinuationToken")[0];
  if (truncated && !token) return undefined;
  return truncated ? { keys, prefixes, continuationToken: token } : { keys, prefixes };
}
