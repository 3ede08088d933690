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
          try { shown = JSON.stringify(JSON.parse(t), null, 2); } catch (e) { /* not JSON */ }
          $('status').className = r.ok ? '' : 'err';
          text($('status'), r.status + ' ' + r.statusText);
          text($('response'), shown);
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
    render();
    document.body.dataset.ready = 'true';
  });
})();
