// authbench report charts: each <figure class="chart"> holds its data as
// JSON (script.chart-data); this draws it with uPlot. Hover shows values in
// the legend, dragging zooms (double-click resets), clicking a legend entry
// hides or shows a series.
(function () {
  "use strict";

  // num prints a figure with at most 4 significant digits, no trailing zeros.
  function num(v) {
    if (v == null || !isFinite(v)) return "—";
    var a = Math.abs(v);
    if (a >= 1000) return Math.round(v).toLocaleString("en-US");
    return String(+v.toPrecision(4));
  }

  // pct labels x = 1/(1-q) as the percentile q: 10 -> 90%, 1000 -> 99.9%,
  // with a digit more than the nines it has: 1250 -> 99.92%.
  function pct(x) {
    if (x == null) return "—";
    var d = Math.min(8, Math.max(1, Math.floor(Math.log10(x))));
    return String(+(100 - 100 / x).toFixed(d)) + "%";
  }

  // ticks formats axis labels; uPlot passes null for a tick it hides.
  function ticks(f) {
    return function (u, splits) { return splits.map(function (v) { return v == null ? "" : f(v); }); };
  }

  // logSplits puts ticks on decades, or on 1-2-5 steps when the view holds
  // fewer than three decades (after zooming into the tail).
  function logSplits(min, max) {
    var out = [], steps = [1];
    var lo = Math.floor(Math.log10(min)), hi = Math.ceil(Math.log10(max));
    if (hi - lo < 3) steps = [1, 2, 5];
    for (var d = lo; d <= hi; d++) {
      for (var i = 0; i < steps.length; i++) {
        var v = steps[i] * Math.pow(10, d);
        if (v >= min * 0.9999 && v <= max * 1.0001) out.push(v);
      }
    }
    return out;
  }

  function axis(spec, side, values) {
    var a = { label: spec.label, side: side, stroke: "#333",
      grid: { stroke: "#e4e7ec", width: 1 }, ticks: { stroke: "#c8cdd5", width: 1 } };
    if (values) a.values = values;
    return a;
  }

  function unit(spec) { return spec.unit ? " " + spec.unit : ""; }

  function lineOpts(spec) {
    var x = spec.x, y = spec.y, o = { scales: { x: { time: false }, y: {} }, series: [{}], axes: [] };
    // The x range is the data's: a log scale would round it out to a decade.
    if (x.log) o.scales.x = { time: false, distr: 3, log: 10, range: function (u, min, max) { return [min, max]; } };
    if (y.log) o.scales.y = { distr: 3, log: 10 };
    o.series[0].label = x.label;
    o.series[0].value = x.percentile ? function (u, v) { return pct(v); } : function (u, v) { return v == null ? "—" : num(v) + unit(x); };
    var xa = axis(x, 2, ticks(x.percentile ? pct : num));
    var ya = axis(y, 3, ticks(num));
    // logSplits already spaces the ticks: label every one.
    [[x, xa], [y, ya]].forEach(function (p) {
      if (!p[0].log) return;
      p[1].splits = function (u, i, min, max) { return logSplits(min, max); };
      p[1].filter = function (u, splits) { return splits; };
    });
    o.axes = [xa, ya];
    spec.series.forEach(function (s) {
      o.series.push({ label: s.label, stroke: s.color, width: 1.5, dash: s.dash ? [6, 4] : undefined,
        points: { show: false }, value: function (u, v) { return v == null ? "—" : num(v) + unit(y); } });
    });
    if (spec.marks || spec.bands) o.hooks = { draw: [function (u) { drawBands(u, spec.bands || []); drawMarks(u, spec.marks || []); }] };
    var tables = spec.series.map(function (s) { return [s.x, s.y]; });
    return { opts: o, data: uPlot.join(tables) };
  }

  // drawBands shades each band's stretch of the x axis (a fault in
  // force), its label at the top left, below the marks' labels.
  function drawBands(u, bands) {
    var ctx = u.ctx, top = u.bbox.top, h = u.bbox.height;
    ctx.save();
    bands.forEach(function (b) {
      var x0 = u.valToPos(b.x0, "x", true), x1 = u.valToPos(b.x1, "x", true);
      ctx.globalAlpha = 0.15; ctx.fillStyle = b.color;
      ctx.fillRect(x0, top, Math.max(x1 - x0, devicePixelRatio), h);
      ctx.globalAlpha = 1; ctx.font = (11 * devicePixelRatio) + "px sans-serif";
      ctx.textAlign = "left"; ctx.textBaseline = "alphabetic";
      ctx.fillText(b.label, x0 + 4 * devicePixelRatio, top + 26 * devicePixelRatio);
    });
    ctx.restore();
  }

  // drawMarks draws vertical lines at marked x values (change points),
  // each with its label at the top.
  function drawMarks(u, marks) {
    var ctx = u.ctx, top = u.bbox.top, h = u.bbox.height;
    ctx.save();
    marks.forEach(function (m) {
      var px = Math.round(u.valToPos(m.x, "x", true));
      ctx.strokeStyle = m.color; ctx.lineWidth = 2 * devicePixelRatio;
      ctx.setLineDash(m.dash ? [6 * devicePixelRatio, 4 * devicePixelRatio] : []);
      ctx.beginPath(); ctx.moveTo(px, top); ctx.lineTo(px, top + h); ctx.stroke();
      ctx.fillStyle = m.color; ctx.font = (11 * devicePixelRatio) + "px sans-serif";
      ctx.fillText(m.label, px + 4 * devicePixelRatio, top + 12 * devicePixelRatio);
    });
    ctx.restore();
  }

  // barOpts groups one bar per series at each category (iteration).
  function barOpts(spec) {
    var n = spec.categories.length, k = spec.series.length, w = 0.8 / k;
    var xs = spec.categories.map(function (_, i) { return i + 1; });
    // Room for at least four iterations, so that one bar is not a wall.
    var pad = Math.max(0, (4 - n) / 2);
    var o = { scales: { x: { time: false, range: [0.5 - pad, n + 0.5 + pad] },
      y: { range: function (u, min, max) { return [0, max > 0 ? max * 1.1 : 1]; } } },
      series: [{ label: spec.x.label, value: function (u, v) { return v == null ? "—" : spec.categories[v - 1]; } }],
      axes: [axis(spec.x, 2, function (u, s) { return s.map(function (v) { return spec.categories[v - 1] || ""; }); }),
        axis(spec.y, 3, ticks(num))],
      cursor: { points: { show: false } } };
    o.axes[0].splits = function () { return xs; };
    var data = [xs];
    spec.series.forEach(function (s, i) {
      var x0 = xs.map(function (x) { return x - 0.4 + (i + 0.04) * w; });
      o.series.push({ label: s.label, stroke: s.color, fill: s.color, width: 0,
        points: { show: false }, value: function (u, v) { return v == null ? "—" : num(v) + unit(spec.y); },
        paths: uPlot.paths.bars({ disp: { x0: { unit: 1, values: function () { return x0; } },
          size: { unit: 1, values: function () { return [w * 0.92]; } } } }) });
      data.push(s.y);
    });
    return { opts: o, data: data };
  }

  // waterfallOpts draws horizontal bars from each layer's start (base) to
  // its end; the legend shows the layer's own cost.
  function waterfallOpts(spec) {
    var s = spec.series[0], n = spec.categories.length, xs = [], ends = [], top = 0;
    for (var i = 0; i < n; i++) {
      xs.push(i);
      ends.push(s.base[i] + (s.y[i] || 0));
      top = Math.max(top, ends[i]);
    }
    var o = { scales: { x: { time: false, ori: 1, dir: -1, range: [-0.5, n - 0.5] },
      y: { ori: 0, range: [0, top > 0 ? top * 1.05 : 1] } },
      series: [{ label: spec.x.label, value: function (u, v) { return v == null ? "—" : spec.categories[v]; } },
        { label: s.label, stroke: s.color, fill: s.color, width: 0, points: { show: false },
          value: function (u, v) { return v == null ? "—" : num(v) + unit(spec.y); },
          paths: uPlot.paths.bars({ size: [0.6, 40], disp: {
            y0: { unit: 1, values: function () { return s.base; } },
            y1: { unit: 1, values: function () { return ends; } } } }) }],
      axes: [axis(spec.x, 3, function (u, sp) { return sp.map(function (v) { return spec.categories[v] || ""; }); }),
        axis(spec.y, 2, ticks(num))],
      cursor: { points: { show: false }, drag: { x: false, y: false } } };
    o.axes[0].splits = function () { return xs; };
    o.axes[0].size = function (u, values) {
      var m = 0;
      (values || []).forEach(function (v) { m = Math.max(m, String(v).length); });
      return Math.min(320, 16 + m * 7);
    };
    o.axes[0].label = "";
    o.axes[1].space = 70;
    return { opts: o, data: [xs, s.y] };
  }

  var builders = { lines: lineOpts, bars: barOpts, waterfall: waterfallOpts };

  function width(el) { return Math.max(300, el.clientWidth); }

  function draw(fig) {
    var script = fig.querySelector("script.chart-data"), el = fig.querySelector(".plot");
    if (!script || !el) return null;
    var spec = JSON.parse(script.textContent);
    var built = builders[spec.kind](spec);
    built.opts.width = width(el);
    built.opts.height = spec.kind === "waterfall" ? Math.max(160, 60 + 34 * spec.categories.length) : 320;
    built.opts.legend = { live: true };
    var u = new uPlot(built.opts, built.data, el);
    fig.classList.add("drawn");
    return { u: u, el: el };
  }

  var plots = [];
  document.querySelectorAll("figure.chart").forEach(function (fig) {
    var p = draw(fig);
    if (p) plots.push(p);
  });
  window.addEventListener("resize", function () {
    plots.forEach(function (p) { p.u.setSize({ width: width(p.el), height: p.u.height }); });
  });
})();
