// A small checker for the subset of JSON Schema (2020-12) that src/openapi/ uses:
// $ref, type (with null), const, enum, oneOf, properties, required,
// additionalProperties, items, minimum/maximum, minLength/maxLength, pattern, format.

type Schema = Record<string, unknown>;

const FORMATS: Record<string, (value: string) => boolean> = {
  'date-time': (value) => /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/.test(value) && !Number.isNaN(Date.parse(value)),
  uuid: (value) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value),
  uri: (value) => URL.canParse(value),
};

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

/** Returns every way `value` breaks `schema`, as "path: problem" lines; empty when it conforms. */
export function validate(value: unknown, schema: Schema, root: Schema, path = '$'): string[] {
  if (typeof schema.$ref === 'string') {
    const target = schema.$ref
      .replace(/^#\//, '')
      .split('/')
      .reduce<unknown>((node, key) => (node as Schema)[key], root);
    if (!target) return [`${path}: unresolved ${schema.$ref}`];
    return validate(value, target as Schema, root, path);
  }
  const problems: string[] = [];
  if ('const' in schema && value !== schema.const) problems.push(`${path}: must be ${JSON.stringify(schema.const)}`);
  if (Array.isArray(schema.enum) && !schema.enum.includes(value))
    problems.push(`${path}: must be one of ${schema.enum.join(', ')}`);
  if (Array.isArray(schema.oneOf)) {
    const passing = schema.oneOf.filter((option) => validate(value, option as Schema, root, path).length === 0).length;
    if (passing !== 1) problems.push(`${path}: must match exactly one of oneOf (matched ${passing})`);
  }
  if (schema.type !== undefined) {
    const allowed = Array.isArray(schema.type) ? schema.type : [schema.type];
    const actual = typeOf(value);
    if (!allowed.includes(actual) && !(actual === 'integer' && allowed.includes('number'))) {
      return [...problems, `${path}: must be of type ${allowed.join(' or ')}, is ${actual}`];
    }
  }
  if (typeof value === 'string') {
    const length = [...value].length;
    if (typeof schema.minLength === 'number' && length < schema.minLength)
      problems.push(`${path}: shorter than ${schema.minLength}`);
    if (typeof schema.maxLength === 'number' && length > schema.maxLength)
      problems.push(`${path}: longer than ${schema.maxLength}`);
    if (typeof schema.pattern === 'string' && !new RegExp(schema.pattern, 'u').test(value))
      problems.push(`${path}: does not match ${schema.pattern}`);
    const format = typeof schema.format === 'string' ? FORMATS[schema.format] : undefined;
    if (format && !format(value)) problems.push(`${path}: is not a valid ${schema.format}`);
  }
  if (typeof value === 'number') {
    if (typeof schema.minimum === 'number' && value < schema.minimum) problems.push(`${path}: below ${schema.minimum}`);
    if (typeof schema.maximum === 'number' && value > schema.maximum) problems.push(`${path}: above ${schema.maximum}`);
  }
  if (Array.isArray(value) && schema.items) {
    value.forEach((item, index) => problems.push(...validate(item, schema.items as Schema, root, `${path}[${index}]`)));
  }
  if (typeOf(value) === 'object') {
    const object = value as Record<string, unknown>;
    for (const name of (schema.required as string[] | undefined) ?? []) {
      if (!(name in object)) problems.push(`${path}: missing required ${name}`);
    }
    const properties = (schema.properties as Record<string, Schema> | undefined) ?? {};
    for (const [name, item] of Object.entries(object)) {
      if (name in properties) problems.push(...validate(item, properties[name] as Schema, root, `${path}.${name}`));
      else if (schema.additionalProperties === false) problems.push(`${path}: unexpected property ${name}`);
      else if (typeof schema.additionalProperties === 'object') {
        problems.push(...validate(item, schema.additionalProperties as Schema, root, `${path}.${name}`));
      }
    }
  }
  return problems;
}
