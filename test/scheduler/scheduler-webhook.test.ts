/**
 * Signed webhooks for scheduler jobs, through the real HTTP server and runner:
 * the receiver checks the HMAC over the exact body (independently of svc's
 * code), gets `started` then `completed`, or `missed`; a receiver failing twice gets the
 * same delivery id three times and the ledger says delivered after 3 attempts;
 * a receiver that never answers does not hold up the runner; without a secret
 * a webhook_url is refused and nothing is stored.
 */
import assert from 'node:assert/strict';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { type IncomingHttpHeaders, createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { KEYS, type TestServer, startTestServer } from '../helpers/server.ts';

const SECRET = 'whsec-test-0123456789abcdef';
const H = 3_600_000;

interface Received { headers: IncomingHttpHeaders; body: string }

function receiver(behaviour: (n: number) => number | 'hang') {
  const received: Received[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      received.push({ headers: req.headers, body });
      const status = behaviour(received.length);
      if (status === 'hang') return;
      res.writeHead(status).end();
    });
  });
  return {
    received,
    async start() {
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      return `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
    },
    async close() {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}

function verified(r: Received): { type: string; job: { id: string; state: string } } {
  const sig = String(r.headers['x-svc-webhook-signature']);
  const m = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(sig);
  assert.ok(m, `signature header ${sig}`);
  const expected = createHmac('sha256', SECRET).update(`${m[1]}.${r.body}`).digest();
  assert.ok(timingSafeEqual(expected, Buffer.from(m[2]!, 'hex')), 'HMAC over the raw body verifies');
  assert.ok(Math.abs(Date.now() / 1000 - Number(m[1])) < 60, 'fresh timestamp');
  assert.ok(!r.body.includes(SECRET), 'the secret is never sent');
  return JSON.parse(r.body) as { type: string; job: { id: string; state: string } };
}

async function until(check: () => boolean, ms = 5_000) {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('scheduler webhooks', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer({ env: { SVC_SCHEDULER_TICK_MS: '0', SVC_SCHEDULER_WEBHOOK_SECRET: SECRET, SVC_SCHEDULER_WEBHOOK_RETRY_MS: '30,60' } });
  });
  after(async () => s?.close());

  const submit = async (webhook_url: string) => {
    const res = await s.call('POST', '/v1/scheduler/jobs', { key: KEYS.acmeWriter, body: { deadline: new Date(Date.now() + 2 * H).toISOString(), duration_seconds: 600, zone: 'DE', mode: 'observe', webhook_url } });
    assert.equal(res.status, 201, await res.clone().text());
    return ((await res.json()) as { job: { id: string } }).job.id;
  };

  it('a signed POST when the job starts and when it completes', async () => {
    const rx = receiver(() => 204);
    const url = await rx.start();
    try {
      const id = await submit(url);
      await s.app.scheduler.tick(100);
      await until(() => rx.received.length >= 1);
      const started = verified(rx.received[0]!);
      assert.equal(started.type, 'scheduler.job.started');
      assert.equal(started.job.id, id);
      assert.equal(started.job.state, 'running');
      assert.equal((await s.call('POST', `/v1/scheduler/jobs/${id}/complete`, { key: KEYS.acmeWriter, body: { outcome: 'succeeded' } })).status, 200);
      await until(() => rx.received.length >= 2);
      const completed = verified(rx.received[1]!);
      assert.equal(completed.type, 'scheduler.job.completed');
      assert.equal(completed.job.state, 'succeeded');
      assert.equal('webhook_url' in completed.job, false, 'the job in the body does not echo the URL');
    } finally {
      await rx.close();
    }
  });

  it('retries a failing receiver with the same delivery id; the ledger records the outcome', async () => {
    const rx = receiver((n) => (n <= 2 ? 500 : 200));
    const url = await rx.start();
    try {
      const id = await submit(url);
      await s.app.scheduler.tick(100);
      await until(() => rx.received.length >= 3);
      const ids = new Set(rx.received.map((r) => r.headers['x-svc-webhook-id']));
      assert.equal(ids.size, 1, 'one delivery id across retries');
      for (const r of rx.received) verified(r);
      let events: Array<{ type: string; payload: Record<string, unknown> }> = [];
      for (let i = 0; i < 50 && !events.some((e) => e.payload.job_id === id); i++) {
        events = ((await (await s.call('POST', '/v1/ledger/query', { body: { event_types: ['scheduler.webhook.delivered'], limit: 1000 } })).json()) as { events: typeof events }).events;
        await new Promise((r) => setTimeout(r, 20));
      }
      const delivered = events.find((e) => e.payload.job_id === id);
      assert.ok(delivered, 'scheduler.webhook.delivered recorded');
      assert.equal(delivered.payload.attempts, 3);
      assert.equal(JSON.stringify(delivered).includes('127.0.0.1'), false, 'no URL in the ledger');
    } finally {
      await rx.close();
    }
  });

  it('a job that misses its latest start is announced as scheduler.job.missed, signed', async () => {
    const rx = receiver(() => 204);
    const url = await rx.start();
    try {
      // Due in 1 s with 1 s of slack: by the tick 1.5 s later its latest start has passed.
      const at = Date.now();
      const res = await s.call('POST', '/v1/scheduler/jobs', {
        key: KEYS.acmeWriter,
        body: { earliest_start: new Date(at + 1_000).toISOString(), deadline: new Date(at + 2_000).toISOString(), duration_seconds: 1, zone: 'DE', webhook_url: url },
      });
      assert.equal(res.status, 201, await res.clone().text());
      const id = ((await res.json()) as { job: { id: string } }).job.id;
      await new Promise((r) => setTimeout(r, 1_500));
      const { missed } = await s.app.scheduler.tick(100);
      assert.ok(missed.some((j) => j.id === id));
      await until(() => rx.received.length >= 1);
      const body = verified(rx.received[0]!);
      assert.equal(body.type, 'scheduler.job.missed');
      assert.equal(body.job.id, id);
      assert.equal(body.job.state, 'missed');
    } finally {
      await rx.close();
    }
  });

  it('a receiver that never answers does not hold up the runner', async () => {
    const rx = receiver(() => 'hang');
    const url = await rx.start();
    try {
      await submit(url);
      const t = performance.now();
      const { started } = await s.app.scheduler.tick(100);
      assert.ok(started.length >= 1);
      assert.ok(performance.now() - t < 1_000, 'tick returned without waiting for the webhook');
      await until(() => rx.received.length >= 1);
    } finally {
      await rx.close();
    }
  });
});

describe('scheduler webhooks without a secret', () => {
  it('a webhook_url is refused (400) and nothing is stored', async () => {
    const s = await startTestServer({ env: { SVC_SCHEDULER_TICK_MS: '0' } });
    try {
      const res = await s.call('POST', '/v1/scheduler/jobs', { key: KEYS.acmeWriter, body: { deadline: new Date(Date.now() + 2 * H).toISOString(), duration_seconds: 600, zone: 'DE', webhook_url: 'http://127.0.0.1:9/hook' } });
      assert.equal(res.status, 400);
      assert.match(((await res.json()) as { error: { message: string } }).error.message, /SVC_SCHEDULER_WEBHOOK_SECRET/);
      const list = (await (await s.call('GET', '/v1/scheduler/jobs', { key: KEYS.acmeReader })).json()) as { jobs: unknown[] };
      assert.equal(list.jobs.length, 0);
    } finally {
      await s.close();
    }
  });
});
