/**
 * Checks an attribution input before any work is done. Size limits belong to
 * the HTTP layer; this guards the engine's own contract (types, revenue).
 */
import { AttrError } from '../errors.ts';
import { parseGrossRevenue, type ParsedRevenue } from './royalty/gross-revenue.ts';
import type { AttributeInput } from './types.ts';

const nonEmpty = (v: unknown): v is string => typeof v === 'string' && v.length > 0;

export function validateAttributeInput(input: AttributeInput): ParsedRevenue {
  if (typeof input?.prompt !== 'string') throw new AttrError('invalid_request', 'prompt must be a string');
  if (input.output !== undefined && typeof input.output !== 'string') throw new AttrError('invalid_request', 'output must be a string when present');
  const c = input.context;
  if (!c || !nonEmpty(c.eventId) || !nonEmpty(c.requestId) || !nonEmpty(c.operator) || !nonEmpty(c.createdAt)) {
    throw new AttrError('invalid_request', 'context needs eventId, requestId, operator and createdAt');
  }
  if (c.provider !== undefined && (!nonEmpty(c.provider.providerId) || !nonEmpty(c.provider.model) || !/^[0-9a-f]{64}$/.test(c.provider.responseSha256))) {
    throw new AttrError('invalid_request', 'context.provider needs providerId, model and a hex responseSha256');
  }
  return parseGrossRevenue(input.grossRevenue);
}
