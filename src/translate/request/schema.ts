// Request bodies checked the way the engine's JSON decoder checks them: each body is described by its Go type, the
// description becomes a JSON schema compiled by ajv once (at the first body of that type), and the first mismatch is
// answered with encoding/json's message — "json: cannot unmarshal number into Go struct field
// ExecConfig.Privileged of type bool". null is accepted anywhere (it leaves Go's zero value); unknown fields are
// ignored, as the engine ignores them — pure.
import type Ajv from 'ajv';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { invalidParameter } from '../../errors';

/** A Go type as the engine's struct declares it. */
export type GoType =
  | 'string'
  | 'bool'
  | 'int'
  | 'int64'
  | 'uint16'
  | '[]string'
  /** strslice.StrSlice: a list of strings or one string (its decoder's fallback names `string` in errors). */
  | 'strslice'
  /** []string, where berth also takes one string (exec's Cmd); errors name `[]string`, as the engine's do. */
  | '[]string (or a string)'
  | 'map[string]string'
  /** A struct: its name in messages about its fields, its Go type (`network.EndpointSettings`), its fields. */
  | { struct: string; go?: string; fields: Record<string, GoType> }
  | { slice: GoType }
  /** A named type over a base one (`container.NetworkMode` is a string): checked as the base, named as itself. */
  | { named: string; of: GoType };

type Schema = Record<string, unknown>;

function schemaOf(t: GoType): Schema {
  if (typeof t !== 'string') {
    if ('named' in t) return schemaOf(t.of);
    if ('slice' in t) return { type: ['array', 'null'], items: schemaOf(t.slice) };
    return { type: ['object', 'null'], properties: Object.fromEntries(Object.entries(t.fields).map(([k, f]) => [k, schemaOf(f)])) };
  }
  switch (t) {
    case 'string':
      return { type: ['string', 'null'] };
    case 'bool':
      return { type: ['boolean', 'null'] };
    case 'int':
    case 'int64':
      return { type: ['integer', 'null'] };
    case 'uint16':
      return { type: ['integer', 'null'], minimum: 0, maximum: 65535 };
    case '[]string':
      return { type: ['array', 'null'], items: { type: 'string' } };
    case 'strslice':
    case '[]string (or a string)':
      return { type: ['array', 'string', 'null'], items: { type: 'string' } };
    case 'map[string]string':
      return { type: ['object', 'null'], additionalProperties: { type: 'string' } };
  }
}

const STRING_LIKE: Record<string, string> = { strslice: 'string', '[]string (or a string)': '[]string' };
const goName = (t: GoType): string => (typeof t === 'string' ? (STRING_LIKE[t] ?? t) : 'named' in t ? t.named : 'slice' in t ? `[]${goName(t.slice)}` : (t.go ?? t.struct));

/** encoding/json's name of a JSON value's kind (a number it cannot store is named with its value). */
function kindOf(v: unknown, outOfRange: boolean): string {
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number') return Number.isInteger(v) && !outOfRange ? 'number' : `number ${v}`;
  return typeof v;
}

/** The Go message for ajv's first error: the struct holding the field, the field's path from the top, its type. */
function goMessage(top: { struct: string; go?: string; fields: Record<string, GoType> }, typeName: string, err: ErrorObject, body: unknown): string {
  const steps = err.instancePath.split('/').slice(1).map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  let value: unknown = body;
  for (const s of steps) value = (value as Record<string, unknown>)[s];
  const kind = kindOf(value, err.keyword === 'minimum' || err.keyword === 'maximum');
  if (steps.length === 0) return `json: cannot unmarshal ${kind} into Go value of type ${typeName}`;
  let holder = top.struct;
  let t: GoType = top;
  const path: string[] = [];
  for (const s of steps) {
    if (typeof t === 'string') {
      t = 'string'; // an element of []string, a value of map[string]string
      continue;
    }
    if ('named' in t) {
      t = 'string'; // named types are over strings or maps of strings here: an element is a string
      continue;
    }
    if ('slice' in t) {
      t = t.slice;
      continue;
    }
    holder = t.struct;
    path.push(s);
    t = t.fields[s];
  }
  return `json: cannot unmarshal ${kind} into Go struct field ${holder}.${path.join('.')} of type ${goName(t)}`;
}

let ajv: Ajv | undefined;

/** ajv is loaded, and a body type's validator compiled, when the first body of that type comes (most types are rarely sent: idle memory and start-up). */
function compile(schema: object): ValidateFunction {
  ajv ??= new (require('ajv') as typeof import('ajv')).default({ allErrors: false, strict: false });
  return ajv.compile(schema);
}

/**
 * A decoder for one body type (compiled at its first body): `decode(body)` returns the body (undefined or null as given) or throws
 * invalidParameter with the engine's message. `typeName` is the Go type as the top-level message names it
 * (`types.ExecConfig`).
 */
export function bodyDecoder<T>(typeName: string, struct: string, fields: Record<string, GoType>): (body: unknown) => T | undefined {
  const top = { struct, fields };
  let validate: ValidateFunction | undefined;
  const byLower = new Map(Object.keys(fields).map((f) => [f.toLowerCase(), f]));
  return (body) => {
    if (body === undefined || body === null) return undefined;
    validate ??= compile(schemaOf(top));
    // Go's decoder matches a field name case-insensitively when no key matches it exactly (docker-py's exec create
    // sends {"detachKeys": …} from the client's config file)
    if (typeof body === 'object' && !Array.isArray(body)) {
      const o = body as Record<string, unknown>;
      for (const k of Object.keys(o)) {
        const f = byLower.get(k.toLowerCase());
        if (f && f !== k && !Object.prototype.hasOwnProperty.call(o, f)) {
          o[f] = o[k];
          delete o[k];
        }
      }
    }
    if (!validate(body)) throw invalidParameter(goMessage(top, typeName, validate.errors![0], body));
    return body as T;
  };
}
