/** Small readers for codec configurations, with errors that name the codec and the field. */
import { InvalidMetadataError } from "../errors.js";
import { isJsonObject, type JsonObject, type JsonValue } from "../metadata/json.js";
import type { CodecConfig } from "../metadata/array-metadata.js";

export function intOption(conf: JsonObject, field: string, codec: string, def: number, min: number, max: number): number {
  const v = conf[field] ?? def;
  if (typeof v !== "number" || !Number.isInteger(v) || v < min || v > max) {
    throw new InvalidMetadataError(`codec "${codec}": "${field}" must be an integer from ${min} to ${max}, got ${JSON.stringify(v)}`);
  }
  return v;
}

export function enumOption<T extends string>(conf: JsonObject, field: string, codec: string, allowed: readonly T[], def: T): T {
  const v = conf[field] ?? def;
  if (typeof v !== "string" || !allowed.includes(v as T)) {
    throw new InvalidMetadataError(`codec "${codec}": "${field}" must be one of ${allowed.join(", ")}, got ${JSON.stringify(v)}`);
  }
  return v as T;
}

export function boolOption(conf: JsonObject, field: string, codec: string, def: boolean): boolean {
  const v = conf[field] ?? def;
  if (typeof v !== "boolean") throw new InvalidMetadataError(`codec "${codec}": "${field}" must be true or false`);
  return v;
}

/** A chain a codec holds (sharding's `codecs`, optional's `mask_codecs`): a list of names or { name, configuration }. */
export function codecList(v: JsonValue | undefined, field: string, codec: string): CodecConfig[] {
  if (!Array.isArray(v)) throw new InvalidMetadataError(`codec "${codec}": "${field}" must be a list of codecs`);
  return v.map((c, i) => {
    if (typeof c === "string") return { name: c };
    if (!isJsonObject(c) || typeof c.name !== "string") {
      throw new InvalidMetadataError(`codec "${codec}": ${field}[${i}] must be an object with a string name`);
    }
    const conf = c.configuration;
    if (conf !== undefined && !isJsonObject(conf)) throw new InvalidMetadataError(`codec "${codec}": ${field}[${i}].configuration must be an object`);
    return conf === undefined ? { name: c.name } : { name: c.name, configuration: conf };
  });
}

/** A held chain as its configuration records it. */
export function codecListJson(configs: readonly CodecConfig[]): JsonValue[] {
  return configs.map((c): JsonObject => (c.configuration ? { name: c.name, configuration: c.configuration } : { name: c.name }));
}
