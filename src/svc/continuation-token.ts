/**
 * Opaque continuation tokens for paged lists: base64url of `<scope>:<position>`,
 * where `scope` names the list (so a token from one list is refused by another)
 * and `position` is the last item of the previous page. A token this service
 * did not issue is a 400, never a silently empty page.
 */
import { type IdPrefix, isId } from '../core/ids.ts';
import { SvcError } from './errors.ts';

const BASE64URL = /^[A-Za-z0-9_-]+$/;

export function encodeContinuationToken(scope: string, position: string): string {
  return Buffer.from(`${scope}:${position}`, 'utf8').toString('base64url');
}

/**
 * The position a token carries. `isPosition` checks its shape (an id pattern,
 * a key length); a token failing any check is refused with one message.
 */
export function decodeContinuationToken(scope: string, token: string, isPosition: (position: string) => boolean): string {
  const refuse = () =>
    new SvcError('invalid_request', 'continuation_token is not a token this service issued: pass next_continuation_token from the previous page unchanged', {
      details: { param: 'continuation_token' },
    });
  if (!BASE64URL.test(token)) throw refuse();
  const buf = Buffer.from(token, 'base64url');
  // Re-encoding must give the same text back: rejects padding tricks and non-canonical spellings.
  if (buf.toString('base64url') !== token) throw refuse();
  const text = buf.toString('utf8');
  const prefix = `${scope}:`;
  if (!text.startsWith(prefix)) throw refuse();
  const position = text.slice(prefix.length);
  if (!isPosition(position)) throw refuse();
  return position;
}

/**
 * An id cursor (`after=<last id of the previous page>`): refused with a 400
 * unless it is an id of the listed kind, so a garbage cursor never reads as
 * an empty page.
 */
export function assertIdCursor(param: string, value: string | undefined, prefix: IdPrefix): void {
  if (value === undefined || isId(value, prefix)) return;
  throw new SvcError('invalid_request', `${param} is not a cursor this service issued: pass the last ${prefix}_ id of the previous page (next_cursor) unchanged`, {
    details: { param },
  });
}
