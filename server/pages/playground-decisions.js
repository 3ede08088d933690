// The decisions an answer carries, as a billing analyst reads them: prior authorization, denial
// remedy, filing and appeal deadlines, payment, NCCI edits, coverage. They are found by field name
// anywhere in the answer (`pa_required`, `remedy`, `deadline_date`, `estimated_payment`,
// `mue_value`, `verdict`...: the names every operation shares), so one renderer serves every
// operation and none of them is special-cased. A degraded answer gets one clear caveat line with
// its warnings folded under a count; a remittance's worklist (`worklist`) is a small table above
// the decisions. Exposes `window.rcmDecisions` (used by playground.js).
(function (root) {
  'use strict';

  /** Provenance, not decisions: never searched (the reliability object has its own caveat line). */
  var SKIP = ['reliability', 'citations', 'citation', 'dataset_versions', 'data_sources', 'rationale_chain', 'raw', 'calculation', 'x12_master'];
  /** Display order, and how many of each kind are listed before "+N more in the JSON". */
  var KINDS = [
    ['prior_auth', 3],
    ['remedy', 3],
    ['deadline', 4],
    ['payment', 2],
    ['ncci', 6],
    ['coverage', 4],
    ['status', 4],
  ];
  /** Kinds an answer states once: rows of a list (a payer's rules, every pattern's remedy) only count when the answer has no top-level one. */
  var ONCE = ['prior_auth', 'remedy', 'payment'];

  var human = function (s) { return String(s).replace(/_/g, ' '); };
  var isNum = function (n) { return typeof n === 'number' && isFinite(n); };
  var money = function (n) { return (n < 0 ? '-$' : '$') + Math.abs(n).toFixed(2).replace(/\B(?=(\d{3})+(?!\d))/g, ','); };
  var plural = function (n, one) { return n + ' ' + one + (n === 1 ? '' : 's'); };
  var prose = function (s) { return typeof s === 'string' && /\s/.test(s); };

  function daysText(days, expired) {
    if (expired === true || (isNum(days) && days < 0)) return isNum(days) && days < 0 ? 'expired ' + plural(-days, 'day') + ' ago' : 'expired';
    if (!isNum(days)) return '';
    return days === 0 ? 'due today' : plural(days, 'day') + ' left';
  }
  var dated = function (date, days, expired) { var d = daysText(days, expired); return date + (d ? ' (' + d + ')' : ''); };

  // Each detector looks at one object of the answer and adds what it decides. It returns true when
  // the object is fully read (its fields are not searched again), or the keys it read (only those
  // are skipped), else false.

  function priorAuth(o, key, parent, add) {
    if (!('pa_required' in o)) return false;
    var value = o.pa_required === true ? 'required' : o.pa_required === false ? 'not required' : 'unknown';
    var matched = (Array.isArray(o.rationale_chain) ? o.rationale_chain : []).filter(function (r) { return r && r.matched; })[0];
    var basis = matched && matched.detail ? matched.detail
      : typeof o.determination === 'string' && o.determination !== value ? o.determination
      : o.reason || (o.source && o.source.citation && o.source.citation.title) || '';
    var sub = [];
    if (o.resolution_tier) sub.push('decided at: ' + human(o.resolution_tier) + (isNum(o.confidence) ? ' (confidence ' + o.confidence + ')' : ''));
    if (o.auth_type) sub.push('how: ' + human(o.auth_type) + (o.delegation_vendor ? ' through ' + o.delegation_vendor : ''));
    if (isNum(o.standard_turnaround_days)) {
      sub.push('turnaround: ' + o.standard_turnaround_days + ' ' + human(o.standard_turnaround_unit || 'days') +
        (isNum(o.urgent_turnaround_days) ? ', urgent ' + plural(o.urgent_turnaround_days, 'day') : isNum(o.urgent_turnaround_hours) ? ', urgent ' + plural(o.urgent_turnaround_hours, 'hour') : ''));
    }
    if (isNum(o.pa_threshold)) sub.push('after ' + plural(o.pa_threshold, 'visit') + (isNum(o.threshold_remaining) ? ', ' + o.threshold_remaining + ' remaining' : ''));
    if (Array.isArray(o.required_documents) && o.required_documents.length) sub.push('send: ' + o.required_documents.join('; '));
    var what = o.code || (o.service_category && human(o.service_category));
    add({ kind: 'prior_auth', label: 'Prior authorization' + (what ? ' for ' + what : ''), value: value, basis: basis, sub: sub });
    return true;
  }

  /** The deadline kinds of a remedy (appeal_by, reopen_by, resubmit_by) as a person says them. */
  var DEADLINE_WORDS = { appeal_by: 'appeal by ', reopen_by: 'reopen by ', resubmit_by: 'corrected claim by ' };

  function remedy(o, key, parent, add) {
    if (typeof o.remedy !== 'string' || !('responsibility' in o)) return false;
    var code = parent && (parent.denial_code || parent.code);
    var sub = ['responsibility: ' + human(o.responsibility)];
    if (o.appeal_rights) sub.push('appeal rights: ' + o.appeal_rights + (o.appeal_condition ? ' (' + o.appeal_condition + ')' : ''));
    var d = o.deadline;
    sub.push(d && typeof d === 'object'
      ? (DEADLINE_WORDS[d.kind] || 'by ') + (d.date ? dated(d.date, d.days_remaining) : 'a date these inputs cannot fix')
      : 'deadline: none computed from these inputs');
    if (o.other_payer && (o.other_payer.name || o.other_payer.id)) sub.push('other payer: ' + (o.other_payer.name || o.other_payer.id));
    if (o.rule_id) sub.push('rule: ' + o.rule_id);
    add({ kind: 'remedy', label: 'Denial remedy' + (code ? ' for ' + code : ''), value: human(o.remedy), basis: o.reason || '', sub: sub });
    return true;
  }

  function deadline(o, key, parent, add) {
    var hasDate = 'deadline_date' in o;
    var remedyDeadline = 'date' in o && 'days_remaining' in o && 'kind' in o;
    var days = isNum(o.applied_deadline_days) ? o.applied_deadline_days : o.deadline_days;
    var limit = isNum(o.limit_value) && o.limit_unit;
    if (!hasDate && !remedyDeadline && !isNum(days) && !limit) return false;
    var appeal = o.appeal_level !== undefined || o.level_name !== undefined || o.kind === 'appeal_by' || /appeal/.test(key);
    var label = appeal ? 'Appeal' + (o.appeal_level !== undefined ? ' level ' + o.appeal_level : ' deadline') + (o.level_name ? ': ' + o.level_name : '')
      : o.kind === 'reopen_by' ? 'Reopening due'
      : o.kind === 'resubmit_by' ? 'Corrected claim due'
      : o.claim_type || o.rule_id || /filing/.test(key) ? 'Filing deadline' + (o.claim_type ? ' (' + human(o.claim_type) + ' claim)' : '')
      : 'Deadline';
    var date = hasDate ? o.deadline_date : remedyDeadline ? o.date : null;
    var value;
    var basis = o.explanation || '';
    if (date) {
      value = dated(date, o.days_remaining, o.is_expired);
      if (!basis && prose(o.starts_from)) basis = 'from ' + o.starts_from;
    } else if (isNum(days)) {
      value = plural(days, 'day') + (o.starts_from && !prose(o.starts_from) ? ' from ' + human(o.starts_from) : '');
      if (prose(o.starts_from)) basis = basis || o.starts_from;
    } else if (limit) {
      value = o.limit_value + ' ' + o.limit_unit + ' from ' + human(o.clock_starts || 'the date of service');
    } else {
      value = 'no date from these inputs';
    }
    var adj = o.business_day_adjustment;
    var sub = adj && adj.moved_from ? ['moved from ' + adj.moved_from + (Array.isArray(adj.reasons) ? ': ' + adj.reasons.join('; ') : '')] : [];
    add({ kind: 'deadline', label: label, value: value, basis: basis, sub: sub });
    return true;
  }

  function payment(o, key, parent, add) {
    var amount = [o.estimated_payment_total, o.estimated_payment, o.payment_amount].filter(isNum)[0];
    if (amount === undefined) return false;
    var comp = o.composition && typeof o.composition === 'object' ? o.composition : o;
    var basis = [];
    if (o.amount_basis) basis.push(human(o.amount_basis));
    if (isNum(o.units) && o.units !== 1) basis.push(o.units + ' units');
    if (comp.facility_rate === true) basis.push('facility rate');
    else if (comp.facility_rate === false) basis.push('non-facility rate');
    if (comp.locality) basis.push('locality ' + comp.locality);
    if (isNum(comp.conversion_factor)) basis.push('conversion factor ' + comp.conversion_factor);
    if (o.drg && o.drg.drg_soi) basis.push('APR-DRG ' + o.drg.drg_soi + (o.drg.description ? ' ' + o.drg.description : ''));
    if (o.fiscal_year) basis.push('fiscal year ' + o.fiscal_year);
    if (isNum(o.allowed_amount) && o.allowed_amount !== amount) basis.push('allowed ' + money(o.allowed_amount));
    var sub = (Array.isArray(comp.applicable_blocks) ? comp.applicable_blocks : Array.isArray(o.total_blocks) ? o.total_blocks : []).map(function (b) {
      var block = comp[b] || {};
      var allowed = Object.keys(block).filter(function (k) { return /^allowed_/.test(k) && isNum(block[k]); }).map(function (k) { return block[k]; })[0];
      return human(b) + (allowed !== undefined ? ': ' + money(allowed) : '');
    });
    var share = comp.beneficiary_cost_sharing;
    if (share && isNum(share.beneficiary_total)) sub.push('patient pays ' + money(share.beneficiary_total) + (isNum(share.program_payment) ? ', the program ' + money(share.program_payment) : ''));
    add({ kind: 'payment', label: isNum(o.payment_amount) && !isNum(o.estimated_payment) ? 'Payment' : 'Estimated payment', value: money(amount), basis: basis.join(' · '), sub: sub, amount: true });
    return ['composition', 'beneficiary_cost_sharing', 'drg', 'hospital', 'policy'].concat(comp === o && Array.isArray(o.applicable_blocks) ? o.applicable_blocks : []);
  }

  function ncciFindings(o, key, parent, add) {
    if (!Array.isArray(o.findings) || !o.findings.some(function (f) { return f && f.status; })) return false;
    var s = o.summary && typeof o.summary === 'object' ? o.summary : {};
    var counts = {};
    o.findings.forEach(function (f) { counts[f.status] = (counts[f.status] || 0) + 1; });
    ['fail', 'warn', 'bypassed', 'no_data', 'pass'].forEach(function (k) { if (isNum(s[k])) counts[k] = s[k]; });
    var tally = Object.keys(counts).filter(function (k) { return counts[k]; }).map(function (k) { return counts[k] + ' ' + human(k); }).join(', ');
    add({ kind: 'ncci', label: 'NCCI edits', value: s.clean === true ? 'clean' : s.clean === false ? 'not clean' : tally, basis: s.clean === undefined ? '' : tally });
    o.findings.filter(function (f) { return f.status && f.status !== 'pass'; }).forEach(function (f) {
      add({ kind: 'ncci', label: 'NCCI ' + String(f.kind || 'edit').toUpperCase() + (Array.isArray(f.codes) ? ' ' + f.codes.join(' + ') : ''), value: human(f.status), basis: f.message || f.rule || '' });
    });
    return true;
  }

  function ptp(o, key, parent, add) {
    if (typeof o.edit_exists !== 'boolean') return false;
    var pair = [o.col1_proc_cd || o.column1, o.col2_proc_cd || o.column2].filter(Boolean).join(' + ');
    var sub = o.edit_exists && o.modifier !== undefined && o.modifier !== '' ? ['modifier indicator ' + o.modifier + (o.modifier_description ? ': ' + o.modifier_description : '')] : [];
    add({ kind: 'ncci', label: 'PTP edit' + (pair ? ' ' + pair : ''), value: !o.edit_exists ? 'no edit' : o.edit_in_effect === false ? 'not in effect' : 'in effect', basis: o.message || '', sub: sub });
    return true;
  }

  function mue(o, key, parent, add) {
    if (!('mue_value' in o)) return false;
    var code = o.proc_cd || o.code || (parent && (parent.proc_cd || parent.code));
    var mai = o.mue_adj_ind_label || (o.mue_adj_ind !== undefined && o.mue_adj_ind !== null ? 'MAI ' + o.mue_adj_ind : '');
    add({ kind: 'ncci', label: 'MUE' + (code ? ' ' + code : '') + (o.mue_type ? ' (' + human(o.mue_type) + ')' : ''), value: isNum(o.mue_value) ? plural(o.mue_value, 'unit') + ' per day or line' : 'no limit', basis: [mai, o.mue_rationale].filter(Boolean).join(' · ') });
    return true;
  }

  function addOn(o, key, parent, add) {
    var lists = Array.isArray(o.primary_codes) && Array.isArray(o.add_on_codes);
    if (typeof o.is_add_on !== 'boolean' && !lists) return false;
    var codeOf = function (c) { return typeof c === 'string' ? c : c && (c.primary_code || c.add_on_code || c.code); };
    var isAddOn = typeof o.is_add_on === 'boolean' ? o.is_add_on : o.primary_codes.length > 0;
    var primaries = (o.primary_codes || []).map(codeOf).filter(Boolean);
    var addOns = (o.add_on_codes || []).map(codeOf).filter(Boolean);
    var code = o.code || (parent && parent.code);
    var basis = isAddOn && primaries.length ? 'bill with a primary code: ' + primaries.slice(0, 8).join(', ') + (primaries.length > 8 ? ' …' : '')
      : addOns.length ? 'its add-on codes: ' + addOns.slice(0, 8).join(', ') + (addOns.length > 8 ? ' …' : '') : '';
    add({ kind: 'ncci', label: 'Add-on code' + (code ? ' ' + code : ''), value: isAddOn ? 'yes' : 'no', basis: basis });
    return true;
  }

  function coverage(o, key, parent, add) {
    if (typeof o.verdict !== 'string') return false;
    var dx = Array.isArray(o.covered_dx_codes) ? o.covered_dx_codes : [];
    add({ kind: 'coverage', label: 'Coverage' + (o.doc_id ? ' (' + o.doc_id + ')' : ''), value: human(o.verdict), basis: dx.length ? 'covered diagnoses: ' + dx.slice(0, 8).join(', ') + (dx.length > 8 ? ' …' : '') : '' });
    return true;
  }

  function status(o, key, parent, add, inArray) {
    if (typeof o.access_status === 'string') {
      add({ kind: 'status', label: 'Access', value: human(o.access_status), basis: Array.isArray(o.conditions) ? o.conditions.join('; ') : '' });
    }
    if (typeof o.required === 'boolean' && key && !inArray) add({ kind: 'status', label: human(key)[0].toUpperCase() + human(key).slice(1), value: o.required ? 'required' : 'not required', basis: '' });
    return false;
  }

  var DETECTORS = [priorAuth, remedy, ncciFindings, ptp, deadline, payment, mue, addOn, coverage, status];

  /** The decisions of `answer`, in display order: `{kind, label, value, basis, sub[], more?}`. */
  function decisionsOf(answer) {
    var found = [];
    (function visit(o, key, parent, depth, inArray) {
      if (!o || typeof o !== 'object' || depth > 8) return;
      if (Array.isArray(o)) {
        // An empty MUE list is a finding too: no edit limits the units.
        if (key === 'mue' && o.length === 0) found.push({ kind: 'ncci', label: 'MUE' + (parent && parent.code ? ' ' + parent.code : ''), value: 'no edit for this code', basis: '', inArray: false });
        o.forEach(function (x) { visit(x, key, parent, depth + 1, true); });
        return;
      }
      var add = function (d) { d.inArray = inArray; found.push(d); };
      var read = [];
      for (var i = 0; i < DETECTORS.length; i++) {
        var r = DETECTORS[i](o, key, parent, add, inArray);
        if (r === true) return;
        if (Array.isArray(r)) read = read.concat(r);
      }
      Object.keys(o).forEach(function (k) { if (SKIP.indexOf(k) < 0 && read.indexOf(k) < 0) visit(o[k], k, o, depth + 1, inArray); });
    })(answer, '', null, 0, false);

    var out = [];
    KINDS.forEach(function (kc) {
      var kind = kc[0];
      var of = found.filter(function (d) { return d.kind === kind; });
      if (ONCE.indexOf(kind) >= 0 && of.some(function (d) { return !d.inArray; })) of = of.filter(function (d) { return !d.inArray; });
      var seen = {};
      of = of.filter(function (d) { var k = d.label + '|' + d.value + '|' + d.basis; if (seen[k]) return false; seen[k] = true; return true; });
      var shown = of.slice(0, kc[1]);
      if (of.length > shown.length) shown[shown.length - 1].more = of.length - shown.length;
      out = out.concat(shown);
    });
    return out;
  }

  /** What qualifies the whole answer: degraded or not, its warnings and caveats, layers not fully resolved. */
  function caveatOf(answer) {
    var rel = answer.reliability && typeof answer.reliability === 'object' ? answer.reliability : {};
    var warnings = (Array.isArray(rel.warnings) ? rel.warnings : []).slice();
    (Array.isArray(answer.caveats) ? answer.caveats : []).forEach(function (c) { if (warnings.indexOf(c) < 0) warnings.push(c); });
    var layers = answer.layers && typeof answer.layers === 'object' ? answer.layers : {};
    var incomplete = Object.keys(layers).filter(function (k) { return layers[k] && layers[k].status && layers[k].status !== 'resolved'; })
      .map(function (k) { return k + ' ' + layers[k].status; });
    return { degraded: rel.degraded === true, warnings: warnings, incomplete: incomplete };
  }

  function el(tag, cls, text) { var e = document.createElement(tag); if (cls) e.className = cls; if (text !== undefined) e.textContent = text; return e; }

  var WORKLIST_COLUMNS = ['Payer', 'Group-reason', 'Remedy', 'Count', 'Amount', 'Earliest deadline'];

  /**
   * A remittance answer's `worklist` (what to work: adjustments with a next step, underpaid lines,
   * rejected acknowledgments; grouped by payer, group and reason, remedy; earliest deadline first)
   * as a small table; null when the answer has no worklist.
   */
  function worklistTable(answer) {
    var items = answer && Array.isArray(answer.worklist) ? answer.worklist : null;
    if (!items) return null;
    var box = el('div');
    box.id = 'worklist';
    box.appendChild(el('h3', '', 'Worklist: ' + plural(items.length, 'item') + (items.length ? ', earliest deadline first' : '')));
    if (!items.length) {
      box.appendChild(el('p', 'note', 'Nothing to work: no adjustment has a next step.'));
      return box;
    }
    var table = el('table', 'worklist');
    var head = el('tr');
    WORKLIST_COLUMNS.forEach(function (c) { head.appendChild(el('th', '', c)); });
    table.appendChild(el('thead')).appendChild(head);
    var body = el('tbody');
    items.forEach(function (w) {
      var what = w.source === 'underpayment' ? 'underpaid ' + w.reason : (w.source === '835' ? '' : w.source + ' ') + w.group + '-' + w.reason;
      var cells = [w.payer || 'payer not named', what, human(w.remedy), String(w.count), isNum(w.amount) ? money(w.amount) : 'no amount', w.earliest_deadline || 'none'];
      var tr = el('tr');
      cells.forEach(function (c, i) { tr.appendChild(el('td', i >= 3 && i <= 4 ? 'num' : '', c)); });
      body.appendChild(tr);
    });
    table.appendChild(body);
    box.appendChild(table);
    return box;
  }

  /** Renders the caveat line, a remittance's worklist and the decisions of `answer` into `box`; false when the answer has none of them. */
  function render(box, answer) {
    var c = caveatOf(answer);
    if (c.degraded || c.warnings.length || c.incomplete.length) {
      var cav = el('div', 'caveat' + (c.degraded ? ' degraded' : ''));
      cav.id = 'caveat';
      if (c.degraded) cav.appendChild(el('strong', '', 'Degraded answer: it rests on fallback or illustrative data. Read the warnings before relying on it.'));
      if (c.incomplete.length) cav.appendChild(el('div', '', 'Not fully resolved: ' + c.incomplete.join(', ')));
      if (c.warnings.length) {
        var det = el('details');
        det.id = 'warnings';
        det.appendChild(el('summary', '', plural(c.warnings.length, 'warning')));
        var ul = el('ul');
        c.warnings.forEach(function (w) { ul.appendChild(el('li', '', w)); });
        det.appendChild(ul);
        cav.appendChild(det);
      }
      box.appendChild(cav);
    }
    var worklist = worklistTable(answer);
    if (worklist) box.appendChild(worklist);
    var list = decisionsOf(answer);
    if (!list.length) return !!worklist;
    box.appendChild(el('h3', '', 'Decisions'));
    var dl = el('ul', 'decisions');
    dl.id = 'decisions';
    list.forEach(function (d) {
      var li = el('li');
      li.dataset.kind = d.kind;
      li.appendChild(el('span', 'label', d.label + ': '));
      li.dataset.value = d.value;
      li.appendChild(el('span', d.amount ? 'value amount' : 'value', d.value));
      if (d.basis) li.appendChild(el('div', 'basis', d.basis));
      if (d.sub && d.sub.length) {
        var sub = el('ul');
        d.sub.forEach(function (s) { sub.appendChild(el('li', '', s)); });
        li.appendChild(sub);
      }
      if (d.more) li.appendChild(el('div', 'note', '+' + d.more + ' more in the JSON'));
      dl.appendChild(li);
    });
    box.appendChild(dl);
    return true;
  }

  root.rcmDecisions = { decisionsOf: decisionsOf, caveatOf: caveatOf, render: render, money: money };
})(window);
