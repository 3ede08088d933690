// The playground: endpoints and their parameters come from the served OpenAPI document; the key
// is a one-hour test key minted by POST /v1/playground/session (never a live key).
(function () {
  'use strict';
  var $ = function (id) { return document.getElementById(id); };
  var ops = [];
  var session = null;

  function text(el, value) { el.textContent = value; }

  function field(p) {
    var wrap = document.createElement('div');
    var label = document.createElement('label');
    label.htmlFor = 'param-' + p.name;
    label.textContent = p.name + (p.required ? ' *' : '') + ' ';
    var hint = document.createElement('small');
    hint.textContent = '(' + p.in + (p.description ? ': ' + p.description : '') + ')';
    label.appendChild(hint);
    var input;
    var values = p.schema && (p.schema.enum || (p.schema.anyOf && p.schema.anyOf.flatMap(function (s) { return s.enum || []; })));
    if (values && values.length) {
      input = document.createElement('select');
      [''].concat(values).forEach(function (v) { var o = document.createElement('option'); o.value = String(v); o.textContent = v === '' ? '(not set)' : String(v); input.appendChild(o); });
    } else {
      input = document.createElement('input');
      input.type = 'text';
    }
    input.id = 'param-' + p.name;
    input.dataset.name = p.name;
    input.dataset.in = p.in;
    if (p.example !== undefined) input.value = String(p.example);
    wrap.appendChild(label);
    wrap.appendChild(input);
    return wrap;
  }

  function render() {
    var op = ops[Number($('operation').value)];
    var form = $('form');
    form.innerHTML = '';
    text($('summary'), op.op.description || '');
    (op.op.parameters || []).filter(function (p) { return p.in !== 'header'; }).forEach(function (p) { form.appendChild(field(p)); });
    var body = op.op.requestBody && op.op.requestBody.content['application/json'];
    if (body) {
      var label = document.createElement('label');
      label.htmlFor = 'body';
      label.textContent = 'JSON body';
      var area = document.createElement('textarea');
      area.id = 'body';
      area.value = body.example ? JSON.stringify(body.example, null, 2) : '{}';
      form.appendChild(label);
      form.appendChild(area);
    }
  }

  function ensureKey() {
    if (session && Date.parse(session.expires_at) - Date.now() > 60000) return Promise.resolve(session);
    return fetch('/v1/playground/session', { method: 'POST' }).then(function (r) {
      return r.json().then(function (b) {
        if (!r.ok) throw new Error(b.detail || ('could not get a test key (' + r.status + ')'));
        session = b;
        text($('key'), 'test key ' + b.key_id + ' (scope ' + b.scopes.join(', ') + ') expires ' + b.expires_at);
        return b;
      });
    });
  }

  function shellQuote(s) { return "'" + s.replace(/'/g, "'\\''") + "'"; }

  function el(tag, cls, value) { var e = document.createElement(tag); if (cls) e.className = cls; if (value !== undefined) e.textContent = value; return e; }
  var money = function (n) { return '$' + Number(n).toFixed(2).replace(/\B(?=(\d{3})+(?!\d))/g, ','); };
  var MONEY_KEY = /(payment|amount|_rate$|^rate$|allowed)/;

  // The answer as a person reads it: its amounts, the blocks they come from, warnings and the
  // dataset versions it used. The raw JSON stays one click away.
  function readable(status, answer) {
    var box = $('readable');
    box.innerHTML = '';
    if (!answer || typeof answer !== 'object') { box.appendChild(el('span', 'note', 'No JSON answer.')); return; }
    if (status >= 400) {
      box.appendChild(el('h3', 'err', 'Error ' + status + (answer.code ? ' (' + answer.code + ')' : '')));
      var issues = Array.isArray(answer.detail) ? answer.detail : [{ loc: [], msg: String(answer.detail) }];
      var ul = el('ul');
      issues.forEach(function (i) { ul.appendChild(el('li', '', (i.loc && i.loc.length ? i.loc.join('.') + ': ' : '') + i.msg)); });
      box.appendChild(ul);
      return;
    }
    if (typeof answer.estimated_payment === 'number') {
      box.appendChild(el('h3', '', 'Estimated payment'));
      box.appendChild(el('div', 'amount', money(answer.estimated_payment)));
      var blocks = el('ul');
      (answer.applicable_blocks || []).forEach(function (b) {
        var block = answer[b] || {};
        var amount = Object.keys(block).filter(function (k) { return /^allowed_/.test(k); }).map(function (k) { return block[k]; })[0];
        blocks.appendChild(el('li', '', b.replace(/_/g, ' ') + (amount !== undefined ? ': ' + money(amount) : '')));
      });
      box.appendChild(blocks);
    } else {
      var found = [];
      (function walk(o, path, depth) {
        if (!o || typeof o !== 'object' || depth > 2 || found.length >= 8) return;
        Object.keys(o).forEach(function (k) {
          if (k === 'reliability') return;
          var v = o[k];
          if (typeof v === 'number' && MONEY_KEY.test(k)) found.push([path.concat(k).join('.'), money(v)]);
          else if (v && typeof v === 'object') walk(v, path.concat(k), depth + 1);
        });
      })(answer, [], 0);
      box.appendChild(el('h3', '', found.length ? 'Amounts' : 'Answer'));
      var list = el('ul');
      found.forEach(function (f) { list.appendChild(el('li', '', f[0] + ': ' + f[1])); });
      if (!found.length) list.appendChild(el('li', '', Object.keys(answer).filter(function (k) { return k !== 'reliability'; }).slice(0, 6).map(function (k) { var v = answer[k]; return k + ': ' + (v && typeof v === 'object' ? (Array.isArray(v) ? v.length + ' items' : '{…}') : String(v)); }).join(' · ')));
      box.appendChild(list);
    }
    var rel = answer.reliability;
    if (rel) {
      if (rel.warnings && rel.warnings.length) {
        box.appendChild(el('h3', 'warn', 'Warnings'));
        var w = el('ul', 'warn');
        rel.warnings.forEach(function (x) { w.appendChild(el('li', '', x)); });
        box.appendChild(w);
      }
      var versions = Object.keys(rel.dataset_versions || {}).map(function (d) { return d + ' ' + rel.dataset_versions[d]; });
      if (versions.length) box.appendChild(el('p', 'note versions', 'Data: ' + versions.join(', ') + (rel.degraded ? ' (degraded)' : '')));
    }
  }

  function send() {
    var op = ops[Number($('operation').value)];
    var path = op.path;
    var query = new URLSearchParams();
    Array.prototype.forEach.call(document.querySelectorAll('#form [data-name]'), function (el) {
      var v = el.value.trim();
      if (el.dataset.in === 'path') path = path.replace('{' + el.dataset.name + '}', encodeURIComponent(v));
      else if (v !== '') query.append(el.dataset.name, v);
    });
    var url = path + (query.toString() ? '?' + query.toString() : '');
    var bodyEl = $('body');
    var body = bodyEl ? bodyEl.value : undefined;
    text($('status'), 'sending…');
    ensureKey().then(function (s) {
      var headers = { 'X-API-Key': s.key };
      if (body !== undefined) headers['Content-Type'] = 'application/json';
      var curl = 'curl -s -X ' + op.method.toUpperCase() + ' -H ' + shellQuote('X-API-Key: ' + s.key) +
        (body !== undefined ? ' -H ' + shellQuote('Content-Type: application/json') + ' --data ' + shellQuote(body) : '') + ' ' + shellQuote(location.origin + url);
      text($('curl'), curl);
      return fetch(url, { method: op.method.toUpperCase(), headers: headers, body: body }).then(function (r) {
        return r.text().then(function (t) {
          var shown = t;
          var value = null;
          try { value = JSON.parse(t); shown = JSON.stringify(value, null, 2); } catch (e) { /* not JSON */ }
          $('status').className = r.ok ? '' : 'err';
          text($('status'), r.status + ' ' + r.statusText);
          text($('response'), shown);
          readable(r.status, value);
        });
      });
    }).catch(function (e) {
      $('status').className = 'err';
      text($('status'), 'error');
      text($('response'), String(e.message || e));
    });
  }

  fetch('/v1/openapi.json').then(function (r) { return r.json(); }).then(function (spec) {
    Object.keys(spec.paths).forEach(function (path) {
      Object.keys(spec.paths[path]).forEach(function (method) {
        var op = spec.paths[path][method];
        if (path === '/v1/mcp' || (op.tags || []).indexOf('system') >= 0) return;
        // Only what the minted key (scope knowledge, test host) can call: no 403 on a first Send.
        var scope = op['x-required-scope'];
        if (scope && scope !== 'knowledge') return;
        ops.push({ path: path, method: method, op: op });
      });
    });
    ops.sort(function (a, b) { return (a.path + a.method).localeCompare(b.path + b.method); });
    var select = $('operation');
    ops.forEach(function (o, i) {
      var opt = document.createElement('option');
      opt.value = String(i);
      opt.textContent = o.method.toUpperCase() + ' ' + o.path + ' — ' + o.op.summary;
      opt.dataset.key = o.method.toUpperCase() + ' ' + o.path;
      select.appendChild(opt);
    });
    select.addEventListener('change', render);
    $('send').addEventListener('click', send);
    // Open on the payment composition, its documented example filled in.
    var start = ops.findIndex(function (o) { return o.op.operationId === 'getCodePayment'; });
    if (start >= 0) select.value = String(start);
    render();
    document.body.dataset.ready = 'true';
  });
})();
