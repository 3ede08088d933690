// The playground: endpoints and their parameters come from the served OpenAPI document; the key
// is a one-hour test key minted by POST /v1/playground/session (never a live key). The list holds
// only the operations that key may call, read from each operation's auth in the document; a JSON
// request body is a form built from its schema (playground-form.js) with the raw JSON a toggle
// away; a text body (an X12 835, `application/edi-x12`) is pasted or read from a chosen file; an
// answer's decisions are read out above its JSON (playground-decisions.js).
(function () {
  'use strict';
  var $ = function (id) { return document.getElementById(id); };
  var doc = null;
  var ops = [];
  var session = null;
  /**
   * The body editor of the selected operation: its form (null when the schema has no fields) and
   * mode (form, json, or text: a file's text, its media type in `type`, the chosen `file` kept).
   */
  var body = { form: null, mode: 'form', schema: null };

  function text(el, value) { el.textContent = value; }
  function el(tag, cls, value) { var e = document.createElement(tag); if (cls) e.className = cls; if (value !== undefined) e.textContent = value; return e; }

  /** The key this page gets from POST /v1/playground/session (its route's contract) until the session answers. */
  var PLAYGROUND_KEY = { type: 'test', scopes: ['knowledge'] };
  var keyOf = function (s) { return s ? { type: /^kp_live_/.test(s.key) ? 'live' : 'test', scopes: s.scopes } : PLAYGROUND_KEY; };

  /**
   * Whether `key` may call `op`, from what the document says: no security requirement is public;
   * else an X-API-Key (the ApiKey scheme) of the type `x-key-type` names, if any, holding
   * `x-required-scope` and every `x-also-required-scopes` (an admin key holds every scope).
   */
  function canCall(op, key) {
    var security = op.security || doc.security || [];
    if (!security.length || security.some(function (s) { return !Object.keys(s).length; })) return true;
    if (!security.some(function (s) { return 'ApiKey' in s; })) return false;
    if (op['x-key-type'] && op['x-key-type'] !== key.type) return false;
    if (key.scopes.indexOf('admin') >= 0) return true;
    return [op['x-required-scope']].concat(op['x-also-required-scopes'] || []).filter(Boolean).every(function (s) { return key.scopes.indexOf(s) >= 0; });
  }

  /**
   * The text media type a body is sent as (`application/edi-x12`, `text/plain`), the first the
   * operation lists, or null: a binary upload (a PDF) is not sent from this page.
   */
  function textType(op) {
    if (!op.requestBody) return null;
    return Object.keys(op.requestBody.content).filter(function (t) { return /^(text\/|application\/edi-)/.test(t); })[0] || null;
  }

  /** The page sends query and path parameters, JSON bodies and text bodies (pasted or from a file). */
  var sendable = function (op) { return !op.requestBody || !!op.requestBody.content['application/json'] || !!textType(op); };

  function paramField(p) {
    var wrap = el('div');
    var label = el('label', '', p.name + (p.required ? ' *' : '') + ' ');
    label.htmlFor = 'param-' + p.name;
    label.appendChild(el('small', '', '(' + p.in + (p.description ? ': ' + p.description : '') + ')'));
    var input;
    var s = p.schema || {};
    var values = s.type === 'boolean' ? [true, false] : s.enum || (s.anyOf && s.anyOf.flatMap(function (b) { return b.enum || []; }));
    if (values && values.length) {
      input = el('select');
      [''].concat(values).forEach(function (v) { var o = el('option', '', v === '' ? '(not set)' : String(v)); o.value = String(v); input.appendChild(o); });
    } else {
      input = el('input');
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

  function showBodyError(msg) { if ($('body-error')) text($('body-error'), msg || ''); }

  /** Switches the body editor between the form and the raw JSON, carrying the body across. */
  function setMode(mode) {
    var area = $('body');
    showBodyError('');
    if (mode === 'json' && body.mode !== 'json') {
      if (body.form) {
        try { area.value = JSON.stringify(body.form.read(), null, 2); } catch (e) { showBodyError(e.message); return; }
      }
    } else if (mode === 'form' && body.mode !== 'form') {
      var value;
      try { value = JSON.parse(area.value); } catch (e) { showBodyError('the JSON does not parse, so the form cannot show it: ' + e.message); return; }
      var form = window.rcmBodyForm.create(body.schema, value, doc);
      if (!form) return;
      body.form = form;
      $('body-form').innerHTML = '';
      $('body-form').appendChild(form.el);
    }
    body.mode = mode;
    $('body-form').hidden = mode !== 'form';
    area.hidden = mode !== 'json';
    $('mode-form').setAttribute('aria-pressed', String(mode === 'form'));
    $('mode-json').setAttribute('aria-pressed', String(mode === 'json'));
  }

  function bodyEditor(content) {
    var example = content.example !== undefined ? content.example
      : content.examples ? (Object.keys(content.examples).map(function (k) { return content.examples[k].value; })[0]) : undefined;
    body = { form: window.rcmBodyForm.create(content.schema, example === undefined ? {} : example, doc), mode: 'form', schema: content.schema };
    var wrap = el('div', 'body-editor');
    var head = el('div', 'body-head');
    head.appendChild(el('span', 'title', 'Request body'));
    var modes = el('div', 'mode');
    modes.setAttribute('role', 'group');
    modes.setAttribute('aria-label', 'edit the body as');
    [['mode-form', 'Form'], ['mode-json', 'JSON']].forEach(function (m) {
      var b = el('button', '', m[1]);
      b.type = 'button';
      b.id = m[0];
      modes.appendChild(b);
    });
    head.appendChild(modes);
    wrap.appendChild(head);
    var formBox = el('div');
    formBox.id = 'body-form';
    if (body.form) formBox.appendChild(body.form.el);
    wrap.appendChild(formBox);
    var area = el('textarea');
    area.id = 'body';
    area.setAttribute('aria-label', 'JSON body');
    area.spellcheck = false;
    area.value = JSON.stringify(example === undefined ? {} : example, null, 2);
    wrap.appendChild(area);
    var err = el('p', 'err');
    err.id = 'body-error';
    wrap.appendChild(err);
    return wrap;
  }

  /**
   * The editor of a text body: a box to paste it and a file picker that reads a file into it. Sent
   * as `type`; a chosen file left as read is sent as its own bytes.
   */
  function textEditor(type) {
    body = { form: null, mode: 'text', schema: null, type: type, file: null, fileText: null };
    var wrap = el('div', 'body-editor');
    var head = el('div', 'body-head');
    head.appendChild(el('span', 'title', 'Request body (' + type + ')'));
    wrap.appendChild(head);
    var area = el('textarea');
    area.id = 'body-text';
    area.setAttribute('aria-label', 'request body: paste the file');
    area.spellcheck = false;
    area.placeholder = 'Paste an X12 835 here (ISA*00*...~), or choose a file below.';
    wrap.appendChild(area);
    var label = el('label', '', 'or choose a file ');
    label.htmlFor = 'body-file';
    label.appendChild(el('small', '', '(read here, sent as ' + type + ')'));
    wrap.appendChild(label);
    var file = el('input');
    file.type = 'file';
    file.id = 'body-file';
    file.addEventListener('change', function () {
      var f = file.files && file.files[0];
      if (!f) return;
      f.text().then(function (t) {
        body.file = f;
        body.fileText = t;
        area.value = t;
        showBodyError('');
      }, function (e) { showBodyError('the file could not be read: ' + (e.message || e)); });
    });
    wrap.appendChild(file);
    wrap.appendChild(el('p', 'note', 'The playground key is a test key: send only synthetic or de-identified files (samples/remittance/medicare.835 in the repository), never PHI.'));
    var err = el('p', 'err');
    err.id = 'body-error';
    wrap.appendChild(err);
    return wrap;
  }

  function render() {
    var op = ops[Number($('operation').value)];
    var form = $('form');
    form.innerHTML = '';
    text($('summary'), op.op.description || '');
    (op.op.parameters || []).filter(function (p) { return p.in !== 'header'; }).forEach(function (p) { form.appendChild(paramField(p)); });
    var content = op.op.requestBody && op.op.requestBody.content['application/json'];
    body = { form: null, mode: 'json', schema: null };
    if (!content && textType(op.op)) form.appendChild(textEditor(textType(op.op)));
    if (content) {
      form.appendChild(bodyEditor(content));
      $('mode-form').addEventListener('click', function () { setMode('form'); });
      $('mode-json').addEventListener('click', function () { setMode('json'); });
      // A schema without named fields has no form: its body is edited as JSON only.
      var formMode = !!body.form;
      body.mode = formMode ? 'form' : 'json';
      $('mode-form').disabled = !formMode;
      $('body-form').hidden = !formMode;
      $('body').hidden = formMode;
      $('mode-form').setAttribute('aria-pressed', String(formMode));
      $('mode-json').setAttribute('aria-pressed', String(!formMode));
    }
  }

  /**
   * The body Send sends: what the form holds, the JSON text as typed, or a text body (the chosen
   * file itself while its text is unedited, else the text); undefined without a body.
   */
  function bodyPayload() {
    if (body.mode === 'text') {
      var text = $('body-text').value;
      if (!text.trim()) throw new Error('the body is empty: paste the file or choose one');
      return body.file && text === body.fileText ? body.file : text;
    }
    if (!$('body')) return undefined;
    if (body.mode === 'form' && body.form) return JSON.stringify(body.form.read());
    return $('body').value;
  }

  var STORE = 'rcm-playground-session';
  var fresh = function (s) { return s && Date.parse(s.expires_at) - Date.now() > 60000; };
  function showKey(s) { text($('key'), 'test key ' + s.key_id + ' (scope ' + s.scopes.join(', ') + ') expires ' + s.expires_at); }

  /** The session key: this tab's while it has over a minute left (a reload mints none), else a new one. */
  function ensureKey() {
    if (!session) {
      try { var kept = JSON.parse(sessionStorage.getItem(STORE) || 'null'); if (fresh(kept)) { session = kept; showKey(kept); } } catch (e) { /* storage off */ }
    }
    if (fresh(session)) return Promise.resolve(session);
    return fetch('/v1/playground/session', { method: 'POST' }).then(function (r) {
      return r.json().then(function (b) {
        if (!r.ok) throw new Error(b.detail || ('could not get a test key (' + r.status + ')'));
        session = b;
        try { sessionStorage.setItem(STORE, JSON.stringify(b)); } catch (e) { /* storage off */ }
        showKey(b);
        return b;
      });
    });
  }

  function shellQuote(s) { return "'" + s.replace(/'/g, "'\\''") + "'"; }

  var MONEY_KEY = /(payment|amount|_rate$|^rate$|allowed)/;

  // The answer as a person reads it: its decisions (or, for an answer without any, its amounts or
  // first fields), one caveat line when it is degraded, and the dataset versions it used. The raw
  // JSON stays one click away.
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
    if (!window.rcmDecisions.render(box, answer)) {
      var found = [];
      (function walk(o, path, depth) {
        if (!o || typeof o !== 'object' || depth > 2 || found.length >= 8) return;
        Object.keys(o).forEach(function (k) {
          if (k === 'reliability') return;
          var v = o[k];
          if (typeof v === 'number' && MONEY_KEY.test(k)) found.push([path.concat(k).join('.'), window.rcmDecisions.money(v)]);
          else if (v && typeof v === 'object') walk(v, path.concat(k), depth + 1);
        });
      })(answer, [], 0);
      box.appendChild(el('h3', '', found.length ? 'Amounts' : 'Answer'));
      var list = el('ul');
      found.forEach(function (f) { list.appendChild(el('li', '', f[0] + ': ' + f[1])); });
      if (!found.length) {
        list.appendChild(el('li', '', Array.isArray(answer) ? answer.length + ' items' : Object.keys(answer).filter(function (k) { return k !== 'reliability'; }).slice(0, 6).map(function (k) { var v = answer[k]; return k + ': ' + (v && typeof v === 'object' ? (Array.isArray(v) ? v.length + ' items' : '{…}') : String(v)); }).join(' · ')));
      }
      box.appendChild(list);
    }
    var rel = answer.reliability;
    var versions = rel ? Object.keys(rel.dataset_versions || {}).map(function (d) { return d + ' ' + rel.dataset_versions[d]; }) : [];
    if (versions.length) box.appendChild(el('p', 'note versions', 'Data: ' + versions.join(', ')));
  }

  function send() {
    var op = ops[Number($('operation').value)];
    var path = op.path;
    var query = new URLSearchParams();
    Array.prototype.forEach.call(document.querySelectorAll('#form [data-name]'), function (input) {
      var v = input.value.trim();
      if (input.dataset.in === 'path') path = path.replace('{' + input.dataset.name + '}', encodeURIComponent(v));
      else if (v !== '') query.append(input.dataset.name, v);
    });
    var url = path + (query.toString() ? '?' + query.toString() : '');
    var payload;
    try {
      payload = bodyPayload();
      showBodyError('');
    } catch (e) {
      showBodyError(e.message);
      $('status').className = 'err';
      text($('status'), 'not sent: ' + e.message);
      return;
    }
    text($('status'), 'sending…');
    ensureKey().then(function (s) {
      var headers = { 'X-API-Key': s.key };
      var type = body.mode === 'text' ? body.type : 'application/json';
      if (payload !== undefined) headers['Content-Type'] = type;
      // A text body is a file: curl sends it from one (its contents are not copied into the command).
      var data = body.mode === 'text' ? ' --data-binary ' + shellQuote('@' + (body.file && payload === body.file ? body.file.name : 'remittance.835')) : ' --data ' + shellQuote(String(payload));
      var curl = 'curl -s -X ' + op.method.toUpperCase() + ' -H ' + shellQuote('X-API-Key: ' + s.key) +
        (payload !== undefined ? ' -H ' + shellQuote('Content-Type: ' + type) + data : '') + ' ' + shellQuote(location.origin + url);
      text($('curl'), curl);
      return fetch(url, { method: op.method.toUpperCase(), headers: headers, body: payload }).then(function (r) {
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

  /** The operations `key` may call and the page can send, sorted; the others are counted in a note. */
  function list(key) {
    ops = [];
    var hidden = 0;
    Object.keys(doc.paths).forEach(function (path) {
      Object.keys(doc.paths[path]).forEach(function (method) {
        var op = doc.paths[path][method];
        // The MCP transport and the service's own endpoints (health, metrics, this page's session) are not for trying here.
        if (path === '/v1/mcp' || (op.tags || []).indexOf('system') >= 0) return;
        if (!canCall(op, key) || !sendable(op)) { hidden++; return; }
        ops.push({ path: path, method: method, op: op });
      });
    });
    ops.sort(function (a, b) { return (a.path + a.method).localeCompare(b.path + b.method); });
    var select = $('operation');
    select.innerHTML = '';
    ops.forEach(function (o, i) {
      var opt = el('option', '', o.method.toUpperCase() + ' ' + o.path + ' — ' + o.op.summary);
      opt.value = String(i);
      opt.dataset.key = o.method.toUpperCase() + ' ' + o.path;
      select.appendChild(opt);
    });
    text($('hidden'), hidden ? 'Not listed: ' + hidden + ' operations that need a live key, another scope or a binary file upload (a PDF), which this ' + key.type + ' key (scope ' + key.scopes.join(', ') + ') and page cannot give (see the API reference).' : '');
  }

  var minted = ensureKey().catch(function (e) { text($('key'), 'no test key yet: ' + (e.message || e) + ' (Send tries again)'); return null; });
  Promise.all([fetch('/v1/openapi.json').then(function (r) { return r.json(); }), minted]).then(function (got) {
    doc = got[0];
    list(keyOf(got[1]));
    var select = $('operation');
    select.addEventListener('change', render);
    $('send').addEventListener('click', send);
    // Enter in a field sends, instead of submitting the form to this page's URL.
    $('form').addEventListener('submit', function (e) { e.preventDefault(); send(); });
    // Open on the payment composition, its documented example filled in.
    var start = ops.findIndex(function (o) { return o.op.operationId === 'getCodePayment'; });
    if (start >= 0) select.value = String(start);
    render();
    document.body.dataset.ready = 'true';
  });
})();
