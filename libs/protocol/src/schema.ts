import type { Static, TSchema } from 'typebox';
import { Compile } from 'typebox/compile';

/** A method of a protocol: its params and its result, each described once. */
export interface MethodSpec<P extends TSchema = TSchema, R extends TSchema = TSchema> {
  params: P;
  result: R;
}

export type MethodTable = Record<string, MethodSpec>;
export type MethodName<T extends MethodTable> = keyof T & string;
/**
 * Each method's params and result, as one mapped type per table: `ParamsOf<T, M>` is then the same
 * type wherever a generic helper passes it on, where `Static<T[M]['params']>` written out is a new
 * instantiation each time, and relating two of those costs the type checker seconds.
 */
type ParamsTable<T extends MethodTable> = { [M in keyof T]: Static<T[M]['params']> };
type ResultTable<T extends MethodTable> = { [M in keyof T]: Static<T[M]['result']> };
export type ParamsOf<T extends MethodTable, M extends MethodName<T>> = ParamsTable<T>[M];
export type ResultOf<T extends MethodTable, M extends MethodName<T>> = ResultTable<T>[M];

export function method<P extends TSchema, R extends TSchema>(params: P, result: R): MethodSpec<P, R> {
  return { params, result };
}

export interface ValidationProblem {
  /** The field at fault, as a path (`lines`, `env/PATH`); empty for the params object itself. */
  field: string;
  message: string;
}

type Validator = ReturnType<typeof Compile>;
const compiled = new WeakMap<TSchema, Validator>();

/** Checks a value against a schema (compiled once); the first problem, or null when it is valid. */
export function validate(schema: TSchema, value: unknown): ValidationProblem | null {
  let validator = compiled.get(schema);
  if (!validator) {
    validator = Compile(schema);
    compiled.set(schema, validator);
  }
  if (validator.Check(value)) return null;
  const errors = validator.Errors(value) as Array<{ keyword: string; instancePath: string; message: string; params: Record<string, unknown> }>;
  // Prefer the error that names a field over the generic "schema is false" of additionalProperties.
  const error = errors.find((e) => e.keyword !== 'boolean') ?? errors[0];
  const path = error.instancePath.replace(/^\//, '');
  if (error.keyword === 'additionalProperties') {
    const extra = (error.params.additionalProperties as string[])[0];
    const field = path ? `${path}/${extra}` : extra;
    return { field, message: `unknown field '${field}'` };
  }
  if (error.keyword === 'required') {
    const missing = (error.params.requiredProperties as string[] | undefined)?.[0] ?? '';
    const field = path ? `${path}/${missing}` : missing;
    return { field, message: `missing field '${field}'` };
  }
  return { field: path, message: path ? `'${path}' ${error.message}` : error.message };
}
