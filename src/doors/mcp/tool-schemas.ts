// The pieces every MCP tool's self-description is made of: annotations, input schemas from the
// contract's constants, and output schemas written out from the OpenAPI document's.

import {
  BOUNDS,
  CREDENTIAL_PATTERN,
  KEY_PATTERN,
  KEY_RULE,
  METADATA_KEYS,
  type ToolName,
} from '../../base/contract.ts';
import { SCHEMAS } from '../../openapi/schemas.ts';

export const READS = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
export const writes = (idempotentHint: boolean) => ({
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint,
  openWorldHint: false,
});
export const input = (properties: Record<string, object>, required: string[] = []) => ({
  type: 'object',
  properties,
  required,
  additionalProperties: false,
});
export const integer = (minimum: number, maximum: number | undefined, description: string) => ({
  type: 'integer',
  minimum,
  ...(maximum !== undefined && { maximum }),
  description,
});
export const CREDENTIAL = {
  conversation_id: { type: 'string', format: 'uuid', description: 'The id open_conversation returned.' },
  access_token: {
    type: 'string',
    pattern: CREDENTIAL_PATTERN,
    description: 'The access_token open_conversation returned (64 lowercase hex characters).',
  },
};
export const KEY = {
  type: 'string',
  minLength: BOUNDS.idempotencyKeyMinLength,
  maxLength: BOUNDS.idempotencyKeyMaxLength,
  pattern: KEY_PATTERN,
  description:
    `A new unique key (${KEY_RULE}; a random UUID is best) for each new message; ` +
    'reuse it only to retry the same call.',
};
export const MESSAGE = {
  type: 'string',
  minLength: 1,
  maxLength: BOUNDS.messageMaxChars,
  description:
    `Your message, 1 to ${BOUNDS.messageMaxChars} characters; no control characters ` +
    'but tab, line feed and carriage return.',
};
export const METADATA = {
  type: 'object',
  additionalProperties: false,
  description: 'Optional, self-declared: who you are. Plain text, no control characters.',
  properties: Object.fromEntries(
    METADATA_KEYS.map((key) => [key, { type: 'string', maxLength: BOUNDS.metadataValueMaxChars }]),
  ),
};

/** A component schema with its references written out: an output schema must stand alone. */
export function inlined(schema: unknown): object {
  if (typeof schema !== 'object' || schema === null) return schema as object;
  if (Array.isArray(schema)) return schema.map(inlined);
  const ref = (schema as { $ref?: string }).$ref;
  if (ref) return inlined(SCHEMAS[ref.split('/').at(-1) as keyof typeof SCHEMAS]);
  return Object.fromEntries(Object.entries(schema).map(([key, value]) => [key, inlined(value)]));
}

export const tool = (name: ToolName, title: string, annotations: object, outputSchema: unknown) => ({
  name,
  title,
  annotations,
  outputSchema: inlined(outputSchema),
});
