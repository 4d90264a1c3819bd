/**
 * An S3Store's location and configuration, as the AWS tools resolve them (s3.ts): apart from the
 * store, so that the reference targets (reference-targets.ts) parse S3 URLs without importing
 * S3Store, whose requests load with the reference reads.
 */
import { InvalidArgumentError } from "../errors.js";
import { validateKey } from "./keys.js";
import type { S3StoreDescriptor, S3StoreOptions } from "./s3.js";

/** `s3://bucket/some/prefix` into its bucket and prefix. */
export function parseS3Url(url: string): { bucket: string; prefix: string } {
  const m = /^s3:\/\/([^/?#]+)\/?([^?#]*)$/i.exec(url);
  // Bucket names: 3 to 63 of lowercase letters, digits, dots and hyphens (dots allowed for old buckets).
  if (!m || !/^[a-z0-9][a-z0-9.\-_]{1,62}$/i.test(m[1]!)) {
    throw new InvalidArgumentError(`invalid S3 URL ${JSON.stringify(url)}: expected s3://bucket or s3://bucket/prefix`);
  }
  const prefix = m[2]!.replace(/^\/+|\/+$/g, "");
  if (prefix !== "") validateKey(prefix);
  return { bucket: m[1]!, prefix };
}

function environment(): Record<string, string | undefined> {
  // Browsers have no process; there every setting comes from the options.
  return typeof process !== "undefined" && process.env ? process.env : {};
}

/** The options completed from the environment, as the AWS CLI would complete them. */
export function resolveS3Config(options: S3StoreOptions): Pick<S3StoreDescriptor, "endpoint" | "region" | "credentials"> {
  const env = options.useEnvironment === false ? {} : environment();
  const endpoint = options.endpoint ?? env.AWS_ENDPOINT_URL_S3 ?? env.AWS_ENDPOINT_URL;
  const region = options.region ?? env.AWS_REGION ?? env.AWS_DEFAULT_REGION ?? "us-east-1";
  let credentials = options.credentials;
  if (!credentials && env.AWS_ACCESS_KEY_ID && env.AWS_SECRET_ACCESS_KEY) {
    credentials = { accessKeyId: env.AWS_ACCESS_KEY_ID, secretAccessKey: env.AWS_SECRET_ACCESS_KEY };
    if (env.AWS_SESSION_TOKEN) credentials.sessionToken = env.AWS_SESSION_TOKEN;
  }
  if (endpoint !== undefined) {
    try {
      new URL(endpoint);
    } catch (err) {
      throw new InvalidArgumentError(`invalid S3 endpoint ${JSON.stringify(endpoint)}: not a URL`);
    }
  }
  const out: Pick<S3StoreDescriptor, "endpoint" | "region" | "credentials"> = { region };
  if (endpoint !== undefined) out.endpoint = endpoint.replace(/\/+$/, "");
  if (credentials) out.credentials = { ...credentials };
  return out;
}
