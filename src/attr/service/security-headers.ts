/**
 * Security defaults on every response: nothing cacheable, no content
 * sniffing, a CSP that allows nothing (the service serves JSON, never HTML or
 * scripts), no framing, no referrer. No CORS headers are ever set: browsers
 * on other origins cannot read responses unless the operator's proxy adds them.
 */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-resource-policy': 'same-origin',
});

/** The response header carrying the server-generated request id. */
export const REQUEST_ID_HEADER = 'x-request-id';
