// The console's throughput charts: each .charts[data-src] block fetches its JSON (the
// console's /api/.../charts) and draws one uPlot chart per meter, one line per broker
// endpoint, again every data-interval seconds.
(function () {
  "use strict";
  var COLORS = ["#2458a6", "#b26a00", "#2e7d32", "#8e24aa", "#c62828", "#00838f"];

  function human(v) {
    if (v == null) return "-";
    var units = ["", "k", "M", "G", "T"], i = 0;
    while (Math.abs(v) >= 1000 && i < units.length - 1) { v /= 1000; i++; }
    return (i ? v.toFixed(1) : v.toFixed(v < 10 ? 1 : 0)) + units[i];
  }

  function options(el, names) {
    return {
      title: el.dataset.title,
      width: Math.max(280, el.clientWidth || 360),
      height: 180,
      scales: { y: { range: function (u, min, max) { return [0, Math.max(1, max * 1.1)]; } } },
      series: [{}].concat(names.map(function (name, i) {
        return { label: name, stroke: COLORS[i % COLORS.length], width: 1.5,
                 value: function (u, v) { return human(v); } };
      })),
      axes: [{}, { size: 60, values: function (u, vals) { return vals.map(human); } }]
    };
  }

  function start(group) {
    var plots = {};
    var every = Math.max(1, parseFloat(group.dataset.interval || "5")) * 1000;
    function refresh() {
      fetch(group.dataset.src, { credentials: "same-origin" })
        .then(function (r) { return r.json(); })
        .then(function (d) {
          group.querySelectorAll(".chart").forEach(function (el) {
            var lines = (d.charts || {})[el.dataset.meter] || {};
            var names = Object.keys(lines).sort();
            var data = [d.times].concat(names.map(function (n) { return lines[n]; }));
            var plot = plots[el.dataset.meter];
            if (!plot || plot.series.length !== names.length + 1) {
              if (plot) plot.destroy();
              plots[el.dataset.meter] = new uPlot(options(el, names), data, el);
            } else {
              plot.setData(data);
            }
            el.dataset.points = String(d.times.length);
          });
          group.dataset.loaded = "true";
        })
        .catch(function () { group.dataset.loaded = "failed"; })
        .then(function () { setTimeout(refresh, every); });
    }
    refresh();
  }

  document.querySelectorAll(".charts[data-src]").forEach(start);
})();
