/** Small readers for codec configurations, with errors that name the codec and the field. */
import { InvalidMetadataError } from "../errors.js";
import type { JsonObject } from "../metadata/json.js";

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
