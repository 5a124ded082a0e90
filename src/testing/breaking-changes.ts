/**
 * What in a new OpenAPI document would break a client written against the old one, judged by
 * direction (docs/contract.md, "Versioning"): a client sends requests and reads answers, so a
 * request may only get wider and an answer only narrower.
 * - Requests: an operation or path removed, a field newly required, a type changed, a range or an
 *   enum narrowed, unknown fields newly refused.
 * - Answers: a documented status removed, a field removed or made optional, a type changed, a new
 *   enum value, a range widened.
 */
type Schema = {
  $ref?: string;
  type?: string;
  enum?: unknown[];
  minimum?: number;
  maximum?: number;
  required?: string[];
  properties?: Record<string, Schema>;
  items?: Schema;
  allOf?: Schema[];
  additionalProperties?: boolean | Schema;
};
type Operation = {
  requestBody?: { required?: boolean; content?: Record<string, { schema?: Schema }> };
  responses?: Record<string, { content?: Record<string, { schema?: Schema }> }>;
};
export type Document = {
  paths: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, Schema> };
};

type Direction = 'request' | 'response';

/** A schema with its `$ref`s and single-element `allOf`s followed (Nest's swagger writes both). */
function resolve(document: Document, schema: Schema | undefined, seen = 0): Schema | undefined {
  if (schema === undefined || seen > 32) return schema;
  if (schema.$ref) {
    const name = schema.$ref.split('/').pop() ?? '';
    return resolve(document, document.components?.schemas?.[name], seen + 1);
  }
  if (schema.allOf?.length === 1) return resolve(document, { ...schema.allOf[0] }, seen + 1);
  return schema;
}

const narrowerRange = (older: Schema, newer: Schema): boolean =>
  (newer.minimum !== undefined && (older.minimum === undefined || newer.minimum > older.minimum)) ||
  (newer.maximum !== undefined && (older.maximum === undefined || newer.maximum < older.maximum));

function compareSchemas(
  old: { document: Document; schema?: Schema },
  next: { document: Document; schema?: Schema },
  direction: Direction,
  at: string,
  found: string[],
): void {
  const older = resolve(old.document, old.schema);
  const newer = resolve(next.document, next.schema);
  if (older === undefined || newer === undefined) return;
  if (older.type !== newer.type) found.push(`${at}: type ${older.type} became ${newer.type}`);
  const olderEnum = older.enum ?? [];
  const newerEnum = newer.enum ?? [];
  const lost = olderEnum.filter((value) => !newerEnum.includes(value));
  const added = newerEnum.filter((value) => !olderEnum.includes(value));
  if (direction === 'request' && newer.enum && lost.length > 0) {
    found.push(`${at}: enum no longer takes ${lost.join(', ')}`);
  }
  if (direction === 'response' && older.enum && added.length > 0) {
    found.push(`${at}: enum may now answer ${added.join(', ')}`);
  }
  if (direction === 'request' && narrowerRange(older, newer)) found.push(`${at}: range narrowed`);
  if (direction === 'response' && narrowerRange(newer, older)) found.push(`${at}: range widened`);
  const olderRequired = new Set(older.required ?? []);
  const newerRequired = new Set(newer.required ?? []);
  for (const name of newerRequired) {
    if (direction === 'request' && !olderRequired.has(name)) {
      found.push(`${at}.${name}: newly required`);
    }
  }
  for (const name of olderRequired) {
    if (direction === 'response' && !newerRequired.has(name) && newer.properties?.[name]) {
      found.push(`${at}.${name}: made optional`);
    }
  }
  if (direction === 'request' && older.additionalProperties !== false) {
    if (newer.additionalProperties === false) found.push(`${at}: unknown fields now refused`);
  }
  for (const [name, property] of Object.entries(older.properties ?? {})) {
    const counterpart = newer.properties?.[name];
    if (counterpart === undefined) {
      if (direction === 'response') found.push(`${at}.${name}: removed`);
      if (direction === 'request' && newer.additionalProperties === false) {
        found.push(`${at}.${name}: no longer accepted`);
      }
      continue;
    }
    compareSchemas(
      { document: old.document, schema: property },
      { document: next.document, schema: counterpart },
      direction,
      `${at}.${name}`,
      found,
    );
  }
  if (older.items && newer.items) {
    compareSchemas(
      { document: old.document, schema: older.items },
      { document: next.document, schema: newer.items },
      direction,
      `${at}[]`,
      found,
    );
  }
}

const jsonSchema = (content?: Record<string, { schema?: Schema }>): Schema | undefined =>
  content?.['application/json']?.schema;

/** The breaking changes from `old` to `next`, one line each; empty when a client cannot tell. */
export function breakingChanges(old: Document, next: Document): string[] {
  const found: string[] = [];
  for (const [path, operations] of Object.entries(old.paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      const at = `${method.toUpperCase()} ${path}`;
      const counterpart = next.paths[path]?.[method];
      if (counterpart === undefined) {
        found.push(`${at}: removed`);
        continue;
      }
      if (!operation.requestBody?.required && counterpart.requestBody?.required) {
        found.push(`${at}: a body newly required`);
      }
      compareSchemas(
        { document: old, schema: jsonSchema(operation.requestBody?.content) },
        { document: next, schema: jsonSchema(counterpart.requestBody?.content) },
        'request',
        `${at} request`,
        found,
      );
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        const answer = counterpart.responses?.[status];
        if (answer === undefined) {
          found.push(`${at} ${status}: no longer documented`);
          continue;
        }
        compareSchemas(
          { document: old, schema: jsonSchema(response.content) },
          { document: next, schema: jsonSchema(answer.content) },
          'response',
          `${at} ${status}`,
          found,
        );
      }
    }
  }
  return found;
}
