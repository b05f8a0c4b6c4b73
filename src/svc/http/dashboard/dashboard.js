// svc web dashboard. The API key lives only in this closure: sent as a header, never stored, never in a URL.
(() => {
  'use strict';
  let apiKey = '';
  let streamAbort = null;
  const $ = (id) => document.getElementById(id);
  const el = (tag, text, cls) => { const e = document.createElement(tag); if (text !== undefined) e.textContent = String(text); if (cls) e.className = cls; return e; };
  const fmt = (v) => (typeof v === 'number' ? (Number.isInteger(v) ? v.toLocaleString('en-US') : v.toPrecision(4)) : String(v));

  async function api(path) {
    const r = await fetch(path, { headers: { 'X-API-Key': apiKey, Accept: 'application/json' } });
    const body = await r.json().catch(() => ({}));
    if (!r.ok && !(path.startsWith('/v1/platforms/readiness') && r.status === 503)) {
      const code = body && body.error ? body.error.code : `http_${r.status}`;
      const msg = r.status === 401 ? 'The API key was rejected (401 unauthenticated). Check the key and try again.' : `${path}: ${code} — ${body && body.error ? body.error.message : r.statusText}`;
      throw new Error(msg);
    }
    return body;
  }

  function figureRow(table, name, f) {
    const tr = el('tr');
    tr.append(el('td', name));
    const v = el('td', `${fmt(f.value)} ${f.unit}`, 'num');
    v.dataset.figure = name;
    tr.append(v);
    const how = el('td', f.method || f.formula || '', 'how');
    if (f.note) how.append(el('div', `note: ${f.note}`));
    tr.append(how);
    table.append(tr);
  }

  function figures(table, obj) {
    table.replaceChildren();
    for (const [k, f] of Object.entries(obj)) if (f && typeof f === 'object' && 'value' in f) figureRow(table, k, f);
  }

  function chart(points) {
    const box = $('chart');
    box.replaceChildren();
    if (points.length === 0) { box.append(el('p', 'no data in the window')); return; }
    const ns = 'http://www.w3.org/2000/svg';
    const svg = document.createElementNS(ns, 'svg');
    svg.setAttribute('viewBox', '0 0 600 160');
    const max = Math.max(1, ...points.map((p) => p.bytes_in));
    const w = 600 / points.length;
    points.forEach((p, i) => {
      for (const [key, color, off] of [['bytes_in', '#adb5bd', 0], ['bytes_stored', '#1c7ed6', w / 3]]) {
        const h = (p[key] / max) * 130;
        const r = document.createElementNS(ns, 'rect');
        r.setAttribute('x', String(i * w + off + 4)); r.setAttribute('y', String(140 - h));
        r.setAttribute('width', String(Math.max(2, w / 3 - 4))); r.setAttribute('height', String(h)); r.setAttribute('fill', color);
        const t = document.createElementNS(ns, 'title'); t.textContent = `${p.day} ${key}: ${p[key]}`; r.append(t);
        svg.append(r);
      }
      const label = document.createElementNS(ns, 'text');
      label.setAttribute('x', String(i * w + 4)); label.setAttribute('y', '155'); label.setAttribute('font-size', '10');
      label.textContent = p.day.slice(5);
      svg.append(label);
    });
    box.append(svg, el('p', 'grey: bytes in, blue: bytes stored (per UTC day)', 'how'));
  }

  function render(report, alerts, readiness, explore) {
    const s = report.sections;
    const head = report.ledger_head ? `${report.ledger_head.event_id} (${report.ledger_head.hash.slice(0, 12)}…)` : 'empty ledger';
    $('meta').textContent = `Window ${report.window.from} → ${report.window.to} · tenant ${report.tenant ?? 'all'} · ledger head ${head}`;
    figures($('measured'), s.executive.savings.measured);
    figures($('estimated'), s.executive.savings.estimated);
    const o = s.executive.overhead.gateway_overhead_p95;
    $('overhead').textContent = `gateway overhead p95: ${fmt(o.value)} ms over ${o.samples} span(s)${o.note ? ` — ${o.note}` : ''}`;
    $('overhead').dataset.figure = 'gateway_overhead_p95';
    chart(s.executive.daily);
    figures($('platform-figures'), s.platform);
    figures($('ai-figures'), s.ai);
    figures($('restore'), s.data.restore_tests.sampled_exact_byte_restore);
    const recs = $('recommendations');
    recs.replaceChildren(...(s.data.recommendations || []).map((r) => el('li', `[${r.severity}] ${r.title} — evidence: ${r.evidence.ids.slice(0, 3).join(', ')}${r.evidence.count > 3 ? ` (+${r.evidence.count - 3})` : ''}; estimated saving ${fmt(r.estimated_saving.value)} ${r.estimated_saving.unit}`)));
    if (recs.children.length === 0) recs.append(el('li', 'no findings'));
    figures($('security-figures'), s.security.refusals);
    const at = $('alerts');
    at.replaceChildren(...alerts.alerts.map((a) => { const tr = el('tr'); tr.append(el('td', a.name), el('td', a.severity), el('td', a.state, a.state === 'inactive' ? 'ok' : a.state)); return tr; }));
    $('readiness').replaceChildren(...readiness.targets.map((t) => el('li', `${t.target}${t.in_use ? ' (in use)' : ''}: ${t.ready ? 'ready' : `not ready — ${(t.checks.find((c) => !c.ok && c.required) || {}).detail || ''}`}`, t.ready ? 'ok' : t.in_use ? 'fail' : '')));
    const body = $('explorer').tBodies[0];
    body.replaceChildren(...explore.rows.map((r) => { const tr = el('tr'); for (const k of ['manifest_id', 'trace_id', 'kind', 'state', 'bytes_in', 'bytes_stored', 'verifier_status', 'cache_result']) tr.append(el('td', r[k])); return tr; }));
  }

  async function follow(tenant) {
    if (streamAbort) streamAbort.abort();
    streamAbort = new AbortController();
    const list = $('ledger-events');
    const q = tenant ? `?tenant=${encodeURIComponent(tenant)}` : '';
    try {
      const r = await fetch(`/v1/ledger/stream${q}`, { headers: { 'X-API-Key': apiKey, Accept: 'text/event-stream' }, signal: streamAbort.signal });
      if (!r.ok) throw new Error(`stream ${r.status}`);
      $('stream-state').textContent = 'live';
      const reader = r.body.pipeThrough(new TextDecoderStream()).getReader();
      let buf = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buf += value;
        let i;
        while ((i = buf.indexOf('\n\n')) >= 0) {
          const frame = buf.slice(0, i); buf = buf.slice(i + 2);
          const data = frame.split('\n').filter((l) => l.startsWith('data: ')).map((l) => l.slice(6)).join('\n');
          if (!data) continue;
          const e = JSON.parse(data);
          const li = el('li', `${e.ts} ${e.type} ${e.id}${e.manifest_id ? ` ${e.manifest_id}` : ''}`);
          li.dataset.type = e.type;
          list.prepend(li);
          while (list.children.length > 200) list.lastChild.remove();
        }
      }
      $('stream-state').textContent = 'ended';
    } catch (err) {
      if (err.name !== 'AbortError') $('stream-state').textContent = `disconnected: ${err.message}`;
    }
  }

  async function load(event) {
    event.preventDefault();
    apiKey = $('api-key').value.trim();
    const tenant = $('tenant').value.trim();
    const q = tenant ? `?tenant=${encodeURIComponent(tenant)}` : '';
    $('error').hidden = true;
    try {
      const [report, alerts, readiness, explore] = await Promise.all([api(`/v1/reports/dashboard${q}`), api('/v1/admin/alerts'), api('/v1/platforms/readiness'), api(`/v1/manifests/explore${q}`)]);
      render(report, alerts, readiness, explore);
      $('content').hidden = false;
      void follow(tenant);
    } catch (err) {
      $('content').hidden = true;
      if (streamAbort) streamAbort.abort();
      $('error').textContent = err.message;
      $('error').hidden = false;
    }
  }

  $('login').addEventListener('submit', load);
})();
