// The readiness report's behaviour: filter, sort, and show a cell's row. No network, no library.
(function () {
  'use strict';
  var started = performance.now();
  var data = JSON.parse(document.getElementById('data').textContent);
  var S = data.strings;
  var grid = document.getElementById('grid');
  var body = grid.tBodies[0];
  var rows = Array.prototype.slice.call(body.rows);
  var detail = document.getElementById('detail');
  var hostBox = document.getElementById('f-host');
  var checkBox = document.getElementById('f-check');
  var badBox = document.getElementById('f-bad');
  var sortBox = document.getElementById('f-sort');
  var shown = document.getElementById('shown');
  var columns = document.createElement('style');
  document.head.appendChild(columns);
  var SEVERITY = ['none', 'skip', 'pass', 'warn', 'unknown', 'fail'];
  var selected = null;

  function severity(h, c) {
    var cell = data.cells[h][c];
    return cell ? SEVERITY.indexOf(S[cell[0]]) : 0;
  }

  function byName(a, b) {
    var x = data.hosts[+a.dataset.h], y = data.hosts[+b.dataset.h];
    return x < y ? -1 : x > y ? 1 : 0;
  }

  function sort(key) {
    var compare = key === 'name' ? byName
      : key === 'fails' ? function (a, b) { return (+b.dataset.fails - +a.dataset.fails) || byName(a, b); }
      : function (a, b) { return (severity(+b.dataset.h, +key) - severity(+a.dataset.h, +key)) || byName(a, b); };
    rows.sort(compare);
    var fragment = document.createDocumentFragment();
    rows.forEach(function (r) { fragment.appendChild(r); });
    body.appendChild(fragment);
    grid.dataset.sort = key;
  }

  function filter() {
    var q = hostBox.value.trim().toLowerCase();
    var bad = badBox.checked;
    var count = 0;
    rows.forEach(function (r) {
      var visible = data.hosts[+r.dataset.h].toLowerCase().indexOf(q) >= 0 && (!bad || r.classList.contains('bad'));
      r.hidden = !visible;
      if (visible) { count++; }
    });
    // Hiding columns by one style rule each: cheaper than touching a thousand cells per column.
    var cq = checkBox.value.trim().toLowerCase();
    var css = '';
    var columnsShown = 0;
    data.checks.forEach(function (name, c) {
      if (cq && name.toLowerCase().indexOf(cq) < 0) {
        css += '#grid tr > :nth-child(' + (c + 3) + ') { display: none; }\n';
      } else {
        columnsShown++;
      }
    });
    columns.textContent = css;
    shown.textContent = count + ' of ' + rows.length + ' nodes, ' + columnsShown + ' of ' + data.checks.length + ' checks';
    shown.dataset.nodes = count;
    shown.dataset.checks = columnsShown;
  }

  function add(parent, tag, text) {
    var e = document.createElement(tag);
    e.textContent = text;
    parent.appendChild(e);
    return e;
  }

  function show(h, c) {
    var cell = data.cells[h][c];
    detail.replaceChildren();
    add(detail, 'h2', data.hosts[h] + ' \u00b7 ' + data.checks[c]);
    var list = document.createElement('dl');
    var fields = cell ? [['verdict', S[cell[0]]], ['measured', S[cell[1]]], ['expected', S[cell[2]]], ['reason', S[cell[3]] || '-'], ['task', S[cell[4]]]]
      : [['verdict', 'none'], ['reason', data.unreachable.indexOf(data.hosts[h]) >= 0 ? 'node unreachable' : 'this check did not run on this node']];
    fields.forEach(function (f) { add(list, 'dt', f[0]); add(list, 'dd', f[1]).className = f[0]; });
    detail.appendChild(list);
    add(detail, 'button', 'close').addEventListener('click', function () { detail.hidden = true; });
    detail.hidden = false;
    detail.dataset.host = data.hosts[h];
    detail.dataset.check = data.checks[c];
    if (selected) { selected.classList.remove('sel'); }
    selected = rows.filter(function (r) { return +r.dataset.h === h; })[0].cells[c + 2];
    selected.classList.add('sel');
  }

  function toHash() {
    var p = new URLSearchParams();
    if (hostBox.value) { p.set('host', hostBox.value); }
    if (checkBox.value) { p.set('check', checkBox.value); }
    if (badBox.checked) { p.set('bad', '1'); }
    var key = grid.dataset.sort;
    if (key && key !== 'name') { p.set('sort', /^\d+$/.test(key) ? data.checks[+key] : key); }
    if (!detail.hidden) { p.set('cell', detail.dataset.host + ',' + detail.dataset.check); }
    history.replaceState(null, '', '#' + p.toString());
  }

  function fromHash() {
    var p = new URLSearchParams(location.hash.slice(1));
    hostBox.value = p.get('host') || '';
    checkBox.value = p.get('check') || '';
    badBox.checked = p.get('bad') === '1';
    var key = p.get('sort') || 'name';
    var named = data.checks.indexOf(key);
    sort(named >= 0 ? String(named) : key);
    sortBox.value = key === 'fails' ? 'fails' : 'name';
    filter();
    var cell = p.get('cell');
    if (cell && cell.indexOf(',') > 0) {
      var at = cell.indexOf(',');
      var h = data.hosts.indexOf(cell.slice(0, at)), c = data.checks.indexOf(cell.slice(at + 1));
      if (h >= 0 && c >= 0) { show(h, c); }
    }
  }

  grid.addEventListener('click', function (e) {
    var td = e.target.closest('td.c');
    if (td) {
      show(+td.parentNode.dataset.h, td.cellIndex - 2);
      toHash();
      return;
    }
    var th = e.target.closest('thead th');
    if (th) {
      sort(th.dataset.sort);
      toHash();
    }
  });
  [hostBox, checkBox].forEach(function (box) { box.addEventListener('input', function () { filter(); toHash(); }); });
  badBox.addEventListener('change', function () { filter(); toHash(); });
  sortBox.addEventListener('change', function () { sort(sortBox.value); toHash(); });
  window.addEventListener('hashchange', fromHash);
  fromHash();
  document.body.dataset.renderMs = String(Math.round(performance.now() - started));
  document.body.dataset.ready = 'true';
})();
