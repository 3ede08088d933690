// A form for a JSON request body, built from the operation's requestBody schema in the served
// OpenAPI document: strings and numbers as inputs, booleans and enums as selects, arrays of
// scalars as comma lists, nested objects as fieldsets, arrays of objects as repeatable fieldsets;
// required fields are marked. A field the form cannot express (a free-form object, a mixed union)
// is a small JSON box of its own. `read()` is the body the form holds, exactly what Send sends.
// Exposes `window.rcmBodyForm` (used by playground.js).
(function (root) {
  'use strict';

  /** `$ref` -> its schema in the document (`#/components/schemas/X`, `#/$defs/X`). */
  function deref(s, doc) {
    for (var n = 0; s && s.$ref && n < 20; n++) {
      if (String(s.$ref).indexOf('#/') !== 0) return {};
      s = String(s.$ref).slice(2).split('/').reduce(function (o, k) { return o && o[k.replace(/~1/g, '/').replace(/~0/g, '~')]; }, doc);
    }
    return s || {};
  }

  /** How a schema is edited: `{kind, schema, values?, item?}`; kind `json` when no input fits. */
  function kindOf(s, doc) {
    s = deref(s, doc);
    if (Array.isArray(s.enum)) return { kind: 'enum', schema: s, values: s.enum };
    if (s.const !== undefined) return { kind: 'enum', schema: s, values: [s.const] };
    var union = s.anyOf || s.oneOf;
    if (Array.isArray(union)) {
      var branches = union.map(function (b) { return deref(b, doc); }).filter(function (b) { return b.type !== 'null'; });
      var kinds = branches.map(function (b) { return kindOf(b, doc); });
      if (kinds.length === 1) return kinds[0];
      if (kinds.length && kinds.every(function (k) { return k.kind === 'enum'; })) return { kind: 'enum', schema: s, values: [].concat.apply([], kinds.map(function (k) { return k.values; })) };
      if (kinds.length && kinds.every(function (k) { return k.kind === 'string'; })) return { kind: 'string', schema: branches[0] };
      return { kind: 'json', schema: s };
    }
    var type = s.type;
    if (Array.isArray(type)) {
      var t = type.filter(function (x) { return x !== 'null'; });
      if (t.length !== 1) return { kind: 'json', schema: s };
      type = t[0];
    }
    if (!type && s.properties) type = 'object';
    if (type === 'string' || type === 'number' || type === 'integer' || type === 'boolean') return { kind: type, schema: s };
    if (type === 'array') {
      var item = kindOf(s.items || {}, doc);
      if (item.kind === 'string' || item.kind === 'number' || item.kind === 'integer' || item.kind === 'enum') return { kind: 'list', schema: s, item: item };
      if (item.kind === 'object') return { kind: 'objects', schema: s, item: item };
      return { kind: 'json', schema: s };
    }
    if (type === 'object' && s.properties && Object.keys(s.properties).length) return { kind: 'object', schema: s };
    return { kind: 'json', schema: s };
  }

  function el(tag, cls, text) { var e = document.createElement(tag); if (cls) e.className = cls; if (text !== undefined) e.textContent = text; return e; }
  var empty = function (v) { return v === undefined || (v && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length === 0); };

  /** A short reading of a schema's limits, for the label's hint. */
  function hintOf(k) {
    var s = k.schema;
    var parts = [];
    if (k.kind === 'list') parts.push('comma-separated' + (k.item.kind === 'enum' ? ': ' + k.item.values.join(', ') : ''));
    if (k.kind === 'integer' || k.kind === 'number') {
      if (s.minimum !== undefined && s.maximum !== undefined) parts.push(s.minimum + '–' + s.maximum);
      else if (s.minimum !== undefined) parts.push('≥ ' + s.minimum);
    }
    if (k.kind === 'string' && s.pattern === '^\\d{4}-\\d{2}-\\d{2}$') parts.push('YYYY-MM-DD');
    if (k.kind === 'json') parts.push('JSON');
    if (s.description) parts.push(s.description);
    if (s.default !== undefined && k.kind !== 'objects') parts.push('default ' + JSON.stringify(s.default));
    return parts.join('; ');
  }

  /** One control: `{el, read}`; `path` names it (`lines.0.code`), `id` is `body-` + path with dashes. */
  function control(name, k, required, value, path, doc) {
    var id = 'body-' + path.join('-');
    if (k.kind === 'object') return objectControl(name, k, required, value, path, doc);
    if (k.kind === 'objects') return objectsControl(name, k, required, value, path, doc);
    var wrap = el('div', 'field');
    var label = el('label', '', name + (required ? ' *' : '') + ' ');
    label.htmlFor = id;
    var hint = hintOf(k);
    if (hint) label.appendChild(el('small', '', '(' + hint + ')'));
    wrap.appendChild(label);
    var input;
    var read;
    if (k.kind === 'boolean' || k.kind === 'enum') {
      var values = k.kind === 'boolean' ? [true, false] : k.values;
      input = el('select');
      [''].concat(values.map(function (v, i) { return String(i); })).forEach(function (v) {
        var o = el('option', '', v === '' ? (required ? '(choose)' : '(not set)') : String(values[Number(v)]));
        o.value = v;
        input.appendChild(o);
      });
      var at = values.indexOf(value);
      input.value = at >= 0 ? String(at) : '';
      read = function () { return input.value === '' ? undefined : values[Number(input.value)]; };
    } else if (k.kind === 'json') {
      input = el('textarea', 'json-field');
      input.value = value === undefined ? '' : JSON.stringify(value, null, 2);
      read = function () {
        var t = input.value.trim();
        if (!t) return undefined;
        try { return JSON.parse(t); } catch (e) { throw new Error(path.join('.') + ' is not valid JSON: ' + e.message); }
      };
    } else {
      input = el('input');
      var numeric = k.kind === 'integer' || k.kind === 'number' || (k.kind === 'list' && (k.item.kind === 'integer' || k.item.kind === 'number'));
      if (k.kind === 'integer' || k.kind === 'number') {
        input.type = 'number';
        input.step = k.kind === 'integer' ? '1' : 'any';
        if (k.schema.minimum !== undefined) input.min = String(k.schema.minimum);
        if (k.schema.maximum !== undefined) input.max = String(k.schema.maximum);
      } else input.type = 'text';
      input.value = value === undefined || value === null ? '' : Array.isArray(value) ? value.join(', ') : String(value);
      var toValue = function (t) { return numeric && t !== '' && !isNaN(Number(t)) ? Number(t) : t; };
      read = k.kind === 'list'
        ? function () { var xs = input.value.split(',').map(function (x) { return x.trim(); }).filter(Boolean).map(toValue); return xs.length ? xs : undefined; }
        : function () { var t = input.value.trim(); return t === '' ? undefined : toValue(t); };
    }
    input.id = id;
    input.dataset.bodyPath = path.join('.');
    if (required) { input.required = true; input.setAttribute('aria-required', 'true'); }
    wrap.appendChild(input);
    return { el: wrap, read: read };
  }

  function objectControl(name, k, required, value, path, doc) {
    var box = path.length ? el('fieldset') : el('div', 'body-fields');
    if (path.length) {
      box.appendChild(el('legend', '', name + (required ? ' *' : '')));
      box.dataset.bodyPath = path.join('.');
    }
    var props = k.schema.properties || {};
    var req = k.schema.required || [];
    var v = value && typeof value === 'object' && !Array.isArray(value) ? value : {};
    var children = Object.keys(props).map(function (p) {
      var c = control(p, kindOf(props[p], doc), req.indexOf(p) >= 0, v[p], path.concat(p), doc);
      box.appendChild(c.el);
      return [p, c];
    });
    // Fields of the value the schema does not name are kept as they are (the server judges them).
    var extra = {};
    Object.keys(v).forEach(function (p) { if (!(p in props)) extra[p] = v[p]; });
    return {
      el: box,
      read: function () {
        var out = {};
        Object.keys(extra).forEach(function (p) { out[p] = extra[p]; });
        children.forEach(function (pc) { var x = pc[1].read(); if (x !== undefined) out[pc[0]] = x; });
        // An optional nested object left blank is left out; the body itself is always an object.
        return path.length && !required && empty(out) ? undefined : out;
      },
    };
  }

  function objectsControl(name, k, required, value, path, doc) {
    var box = el('fieldset', 'items');
    box.dataset.bodyPath = path.join('.');
    box.appendChild(el('legend', '', name + (required ? ' *' : '') + ' (list)'));
    var list = el('div');
    box.appendChild(list);
    var items = [];
    var n = 0;
    function addItem(v) {
      var i = n++;
      // Each item is an object fieldset of its own; blank items are left out of the body.
      var c = objectControl(name + ' item', k.item, false, v, path.concat(String(i)), doc);
      var item = c.el;
      item.className = 'item';
      var remove = el('button', 'small', 'Remove');
      remove.type = 'button';
      remove.id = 'body-' + path.concat(String(i)).join('-') + '-remove';
      var entry = { el: item, read: c.read };
      remove.addEventListener('click', function () { items.splice(items.indexOf(entry), 1); list.removeChild(item); });
      item.appendChild(remove);
      items.push(entry);
      list.appendChild(item);
    }
    (Array.isArray(value) ? value : []).forEach(addItem);
    if (!items.length && required) addItem({});
    var add = el('button', 'small', 'Add ' + name + ' item');
    add.type = 'button';
    add.id = 'body-' + path.join('-') + '-add';
    add.addEventListener('click', function () { addItem({}); });
    box.appendChild(add);
    return {
      el: box,
      read: function () {
        var xs = items.map(function (e) { return e.read(); }).filter(function (x) { return !empty(x); });
        return xs.length ? xs : undefined;
      },
    };
  }

  /**
   * The form for a request body schema, filled from `value` (the operation's example), or null
   * when the body is not an object with named fields (then only the JSON text fits).
   */
  function create(schema, value, doc) {
    var k = kindOf(schema || {}, doc);
    if (k.kind !== 'object') return null;
    return objectControl('', k, true, value, [], doc);
  }

  root.rcmBodyForm = { create: create };
})(window);
