/**
 * Every paged list refuses a cursor or continuation token it did not issue
 * with a 400 and the spec's error body, instead of answering an empty page
 * (issue 10, defect 10).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { KEYS, type TestServer, startTestServer } from '../helpers/server.ts';

describe('list cursors', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer({ engine: 'sqlite' });
  });
  after(async () => {
    await s?.close();
  });

  const lists: Array<[string, string]> = [
    ['GET', '/v1/plans?after=garbage'],
    ['GET', '/v1/approvals?after=garbage'],
    ['GET', '/v1/manifests?cursor=garbage'],
    ['GET', '/v1/work-units?continuation_token=garbage'],
  ];
  for (const [method, url] of lists) {
    it(`${method} ${url} is a 400 with the error body`, async () => {
      const res = await s.call(method, url);
      assert.equal(res.status, 400);
      const body = (await res.json()) as { error: { code: string; message: string; retryable: boolean } };
      assert.equal(typeof body.error.code, 'string');
      assert.equal(body.error.retryable, false);
    });
  }

  it('object list refuses a token that is base64url but was not issued for object lists', async () => {
    const res = await s.call('POST', '/v1/s3/objects/list', { key: KEYS.acmeWriter, body: { bucket: 'b', continuation_token: Buffer.from('wul1:x').toString('base64url') } });
    assert.equal(res.status, 400);
  });
});
