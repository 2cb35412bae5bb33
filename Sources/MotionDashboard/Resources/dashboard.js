// OpenCoreMotion dashboard page: reads the server's WebSocket frames (docs/Dashboard.md) and
// draws them. No framework, no build step.
"use strict";

const WINDOW_SECONDS = 10;
const CAPACITY = 4096;
const $ = (id) => document.getElementById(id);
const MARK_KINDS = new Set(["shake", "tap", "movement", "orientation"]);
const ACCURACY_NAMES = { "-1": "uncalibrated", "0": "low", "1": "medium", "2": "high" };
const NORTH_FRAMES = new Set(["xMagneticNorthZVertical", "xTrueNorthZVertical"]);

// A ring buffer of [t, x, y, z] rows.
class Series {
  constructor() { this.t = new Float64Array(CAPACITY); this.v = new Float32Array(CAPACITY * 3); this.start = 0; this.count = 0; }
  push(t, x, y, z) {
    const i = (this.start + this.count) % CAPACITY;
    this.t[i] = t; this.v[i * 3] = x; this.v[i * 3 + 1] = y; this.v[i * 3 + 2] = z;
    if (this.count < CAPACITY) this.count++; else this.start = (this.start + 1) % CAPACITY;
  }
  clear() { this.start = 0; this.count = 0; }
  last() { return this.count ? this.t[(this.start + this.count - 1) % CAPACITY] : null; }
}

const series = {
  acceleration: new Series(), gravity: new Series(), user: new Series(), rotation: new Series(),
  field: new Series(),
};
const plots = [
  { canvas: "plot-acceleration", series: series.acceleration, fixed: 2 },
  { canvas: "plot-gravity", series: series.gravity, fixed: 1.1 },
  { canvas: "plot-user-acceleration", series: series.user, fixed: 1 },
  { canvas: "plot-rotation-rate", series: series.rotation, fixed: 4 },
  { canvas: "plot-magnetic-field", series: series.field, fixed: 80 },
];
const marks = [];  // {t, kind, detail}

const state = {
  socket: null, hello: null, paused: false, latestTime: null, pausedAt: null, attitude: null, dirty3D: false,
  heading: null, frame: null, fps: 0, frames: 0, messages: 0, rafCount: 0, rafStart: performance.now(),
  lastLatency: null, retry: 500, fieldAccuracy: null, hasMotion: false, dataVersion: 0, drawnVersion: -1,
  drawnAutoscale: true, workMs: 0, messageMs: 0,
  // The history panel: the last answer of /api/history, the day chosen for the drill-down
  // (`YYYY-MM-DD`, kept across reloads) and its detail as drawn; how many of each were drawn
  // (for tests).
  history: null, selectedDay: null, dayDetail: null, historyLoads: 0, dayLoads: 0,
  // The latest day request (older answers are dropped), and whether the detail shown was
  // fetched while its day was today (it is fetched once more after midnight).
  daySeq: 0, dayDetailWasToday: false,
};
window.dashboardStats = state;  // read by the browser tests and the frame-rate benchmark

// The token's query, when the page was opened with one (`--listen`).
function tokenQuery() {
  const token = new URLSearchParams(location.search).get("token");
  return token ? "?token=" + encodeURIComponent(token) : "";
}

// The WebSocket's query: binary data frames (JSON text if the page was opened with
// `?format=json`, for comparing the two), and the token if any.
function socketQuery() {
  const token = tokenQuery();
  const format = new URLSearchParams(location.search).get("format") === "json" ? "json" : "binary";
  return "?format=" + format + (token ? "&" + token.slice(1) : "");
}

const textDecoder = new TextDecoder();
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

// A binary data frame (docs/Dashboard.md, "Binary data frames"): "OCMD", the header's length,
// the JSON header, padding to 8 bytes, then each block's rows as little-endian doubles. Returns
// the same object as a JSON data frame (rows as arrays, NaN as null), or null if malformed.
function decodeBinaryFrame(buffer) {
  if (buffer.byteLength < 8) return null;
  const view = new DataView(buffer);
  if (textDecoder.decode(new Uint8Array(buffer, 0, 4)) !== "OCMD") return null;
  const headerLength = view.getUint32(4, true);
  if (8 + headerLength > buffer.byteLength) return null;
  const frame = JSON.parse(textDecoder.decode(new Uint8Array(buffer, 8, headerLength)));
  let offset = Math.ceil((8 + headerLength) / 8) * 8;
  for (const [name, rows, columns] of frame.blocks || []) {
    const count = rows * columns;
    if (offset + count * 8 > buffer.byteLength) return null;
    const values = LITTLE_ENDIAN ? new Float64Array(buffer, offset, count) : null;
    const list = new Array(rows);
    for (let r = 0; r < rows; r++) {
      const row = new Array(columns);
      for (let c = 0; c < columns; c++) {
        const value = values ? values[r * columns + c] : view.getFloat64(offset + (r * columns + c) * 8, true);
        row[c] = Number.isNaN(value) ? null : value;
      }
      list[r] = row;
    }
    frame[name] = list;
    offset += count * 8;
  }
  delete frame.blocks;
  return frame;
}

function connect() {
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  const socket = new WebSocket(scheme + "//" + location.host + "/ws" + socketQuery());
  socket.binaryType = "arraybuffer";
  state.socket = socket;
  socket.onopen = () => { setStatus("live", true); state.retry = 500; };
  socket.onclose = () => {
    setStatus("offline", false);
    setTimeout(connect, state.retry);
    state.retry = Math.min(state.retry * 2, 8000);
  };
  socket.onmessage = (event) => {
    const began = performance.now();
    let message;
    try {
      message = typeof event.data === "string" ? JSON.parse(event.data) : decodeBinaryFrame(event.data);
    } catch (error) { return; }
    if (!message) return;
    state.messages++;
    if (message.type === "hello") onHello(message);
    else if (message.type === "data") onData(message);
    else if (message.type === "notice") showNotice(message.message);
    state.messageMs += performance.now() - began;
  };
}

function send(message) {
  if (state.socket && state.socket.readyState === WebSocket.OPEN) state.socket.send(JSON.stringify(message));
}

function setStatus(text, live) {
  const pill = document.querySelector("[data-testid=connection-status]");
  pill.textContent = text;
  pill.classList.toggle("live", live);
}

function showNotice(text) {
  const notice = $("notice");
  notice.textContent = text;
  notice.hidden = !text;
  if (text) setTimeout(() => { if (notice.textContent === text) notice.hidden = true; }, 6000);
}

function fillSelect(select, values, current, label) {
  select.replaceChildren(...values.map((value) => {
    const option = document.createElement("option");
    option.value = String(value);
    option.textContent = label ? label(value) : String(value);
    option.selected = String(value) === String(current);
    return option;
  }));
}

function onHello(hello) {
  const switched = state.hello && state.hello.source !== hello.source;
  state.hello = hello;
  document.querySelector("[data-testid=source-name]").textContent = hello.source;
  fillSelect($("frame-select"), hello.frames, hello.frame);
  fillSelect($("rate-select"), hello.rates.includes(hello.rate) ? hello.rates : hello.rates.concat([hello.rate]),
    hello.rate, (rate) => rate + " Hz");
  $("scenario-control").hidden = hello.scenarios.length === 0;
  fillSelect($("scenario-select"), hello.scenarios, hello.scenario);
  state.frame = hello.frame;
  $("frame-name").textContent = hello.frame;
  const north = NORTH_FRAMES.has(hello.frame);
  $("compass").classList.toggle("off", !north);
  $("compass-hint").hidden = north;
  if (switched) {
    for (const s of Object.values(series)) s.clear();
    marks.length = 0;
    $("event-log").replaceChildren();
  }
  showRecording(hello.recording);
  const panel = $("history-panel");
  panel.hidden = !hello.history;
  if (hello.history) {
    loadHistory();
    // Every 10 s while the page is shown (today's bar follows the steps being counted), and at
    // once when a hidden tab is shown again.
    if (!state.historyTimer) {
      state.historyTimer = setInterval(() => { if (!document.hidden) loadHistory(); }, 10000);
      document.addEventListener("visibilitychange", () => { if (!document.hidden) loadHistory(); });
    }
  }
}

function onData(frame) {
  const now = Date.now();
  state.dataVersion++;
  for (const row of frame.accelerometer) series.acceleration.push(row[0], row[1], row[2], row[3]);
  for (const row of frame.motion) {
    state.hasMotion = true;
    series.gravity.push(row[0], row[5], row[6], row[7]);
    series.user.push(row[0], row[8], row[9], row[10]);
    series.rotation.push(row[0], row[11], row[12], row[13]);
    if (row[17] !== null && row[17] >= 0) series.field.push(row[0], row[14], row[15], row[16]);
    state.fieldAccuracy = row[17];
    state.heading = row[18];
  }
  if (!state.hasMotion) for (const row of frame.gyroscope) series.rotation.push(row[0], row[1], row[2], row[3]);
  // The raw field when the calibrated one is not available.
  if (state.fieldAccuracy === null || state.fieldAccuracy < 0) {
    for (const row of frame.magnetometer) series.field.push(row[0], row[1], row[2], row[3]);
    setText("field-kind", frame.magnetometer.length || series.field.count ? "(raw)" : "");
  } else {
    setText("field-kind", "(calibrated)");
  }
  const lastMotion = frame.motion[frame.motion.length - 1];
  if (lastMotion) { state.attitude = lastMotion.slice(1, 5); state.dirty3D = true; }
  const times = [series.acceleration.last(), series.gravity.last()].filter((t) => t !== null);
  if (times.length) state.latestTime = Math.max(...times);
  for (const event of frame.events) addEvent(event);
  setText("orientation-name", frame.orientation);
  showPedometer(frame.pedometer);
  showHealth(frame, now);
  showRecording(frame.recording);
}

// Sets an element's text only when it changes (no layout work, no DOM mutation otherwise).
function setText(id, text) {
  const element = $(id);
  if (element.textContent !== text) element.textContent = text;
}

function addEvent(event) {
  if (event.kind === "step") return;  // steps are counted, not listed
  if (MARK_KINDS.has(event.kind) && event.t !== null) {
    marks.push(event);
    if (marks.length > 200) marks.shift();
  }
  const item = document.createElement("li");
  item.dataset.kind = event.kind;
  item.textContent = (event.t === null ? "" : event.t.toFixed(2) + " s  ") + event.kind + " " + event.detail;
  const log = $("event-log");
  log.prepend(item);
  while (log.children.length > 100) log.lastChild.remove();
}

function fixed(value, digits, unit) { return value === null || value === undefined ? "–" : value.toFixed(digits) + (unit || ""); }

function showPedometer(p) {
  setText("step-count", String(p.steps));
  setText("cadence", fixed(p.cadence, 2, " steps/s"));
  setText("pace", fixed(p.pace, 2, " s/m"));
  setText("distance", fixed(p.distance, 1, " m"));
  setText("floors", p.floorsAscended + " / " + p.floorsDescended);
  setText("activity", p.activity + " (" + p.confidence + ")");
  setText("relative-altitude", fixed(p.relativeAltitude, 2, " m"));
}

function showHealth(frame, now) {
  const entries = Object.entries(frame.health.sensors);
  const signature = entries.map(([name, meter]) => name + fixed(meter.rate, 1) + meter.missed).join();
  if (signature !== state.healthSignature) {
    state.healthSignature = signature;
    showHealthRows(entries);
  }
  const network = now - frame.serverTime;
  state.lastLatency = network;
  setText("latency", (frame.health.latency * 1000).toFixed(1) + " ms / " + Math.max(0, network).toFixed(1) + " ms");
  setText("dropped-frames", String(frame.client.droppedFrames));
  if (frame.server) setText("server-frames", frame.server.clients + " / " + frame.server.droppedFrames);
  setText("source-state", frame.health.problem || (frame.health.finished ? "finished" : "running"));
}

function showHealthRows(entries) {
  const rows = entries.map(([name, meter]) => {
    const row = document.createElement("tr");
    for (const text of [name, fixed(meter.rate, 1, " Hz"), String(meter.missed)]) {
      const cell = document.createElement("td");
      cell.textContent = text;
      row.append(cell);
    }
    return row;
  });
  $("health-rows").replaceChildren(...rows);
}

function showRecording(recording) {
  if (!recording) return;
  const button = $("record-button");
  button.textContent = recording.active ? "Stop" : "Record";
  button.classList.toggle("active", recording.active);
  $("record-status").textContent = recording.active
    ? "● " + recording.file + " (" + recording.samples + ")"
    : (recording.message || "");
}

// --- 3D view -------------------------------------------------------------------------------

// Rotation matrix (device → reference) of the quaternion [w, x, y, z].
function matrixOf(q) {
  const [w, x, y, z] = q;
  return [
    [1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
    [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
    [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)],
  ];
}

function multiply(a, b) {
  return a.map((row) => [0, 1, 2].map((j) => row[0] * b[0][j] + row[1] * b[1][j] + row[2] * b[2][j]));
}

// The CSS transform showing the device with attitude q: reference X to the right, Z up, Y away
// from the viewer, seen from 55° above; CSS's y axis points down, the device's up.
const CAMERA = (() => {
  const a = 55 * Math.PI / 180;
  const tilt = [[1, 0, 0], [0, Math.cos(a), -Math.sin(a)], [0, Math.sin(a), Math.cos(a)]];
  const view = [[1, 0, 0], [0, 0, 1], [0, -1, 0]];
  return multiply(tilt, view);
})();

function cssTransform(q) {
  const m = multiply(CAMERA, matrixOf(q));
  const flip = [[1, 0, 0], [0, -1, 0], [0, 0, 1]];
  const c = multiply(flip, multiply(m, flip));
  const n = (v) => (Math.abs(v) < 1e-9 ? 0 : v).toFixed(5);
  return "matrix3d(" + [
    c[0][0], c[1][0], c[2][0], 0, c[0][1], c[1][1], c[2][1], 0, c[0][2], c[1][2], c[2][2], 0, 0, 0, 0, 1,
  ].map(n).join(",") + ")";
}

function eulerText(q) {
  const m = matrixOf(q);
  const roll = Math.atan2(-m[2][0], m[2][2]);
  const pitch = Math.asin(Math.max(-1, Math.min(1, m[2][1])));
  const yaw = Math.atan2(-m[0][1], m[1][1]);
  const d = (r) => (r * 180 / Math.PI).toFixed(1) + "°";
  return d(roll) + " / " + d(pitch) + " / " + d(yaw);
}

// --- Plots ---------------------------------------------------------------------------------

function colors() {
  const style = getComputedStyle(document.documentElement);
  return {
    x: style.getPropertyValue("--x"), y: style.getPropertyValue("--y"), z: style.getPropertyValue("--z"),
    line: style.getPropertyValue("--line"), muted: style.getPropertyValue("--muted"), accent: style.getPropertyValue("--accent"),
  };
}
let palette = null;

function drawPlot(plot, end) {
  const canvas = $(plot.canvas);
  const ratio = window.devicePixelRatio || 1;
  const width = Math.max(1, Math.round(canvas.clientWidth * ratio));
  const height = Math.max(1, Math.round(canvas.clientHeight * ratio));
  if (canvas.width !== width || canvas.height !== height) { canvas.width = width; canvas.height = height; }
  const g = canvas.getContext("2d");
  g.clearRect(0, 0, width, height);
  const s = plot.series;
  const start = end - WINDOW_SECONDS;
  let limit = plot.fixed;
  if ($("autoscale").checked) {
    limit = 1e-6;
    for (let k = 0; k < s.count; k++) {
      const i = (s.start + k) % CAPACITY;
      if (s.t[i] < start) continue;
      for (let a = 0; a < 3; a++) limit = Math.max(limit, Math.abs(s.v[i * 3 + a]));
    }
    limit *= 1.1;
  }
  const x = (t) => (t - start) / WINDOW_SECONDS * width;
  const y = (v) => height / 2 - v / limit * (height / 2 - 2);
  g.strokeStyle = palette.line;
  g.lineWidth = 1;
  g.beginPath(); g.moveTo(0, height / 2); g.lineTo(width, height / 2); g.stroke();
  g.fillStyle = palette.muted;
  g.font = (10 * ratio) + "px sans-serif";
  g.fillText("±" + (limit < 10 ? limit.toFixed(2) : limit.toFixed(0)), 3, 11 * ratio);
  let shown = 0;
  for (const mark of marks) {
    if (mark.t < start || mark.t > end) continue;
    g.strokeStyle = palette.accent;
    g.beginPath(); g.moveTo(x(mark.t), 0); g.lineTo(x(mark.t), height); g.stroke();
    g.fillStyle = palette.accent;
    // Labels of nearby marks on three staggered lines so that they stay readable.
    g.fillText(mark.kind + " " + mark.detail, x(mark.t) + 2, height - 3 * ratio - (shown++ % 3) * 11 * ratio);
  }
  const axisColors = [palette.x, palette.y, palette.z];
  g.lineWidth = 1.5 * ratio;
  for (let a = 0; a < 3; a++) {
    g.strokeStyle = axisColors[a];
    g.beginPath();
    let started = false;
    let lastX = -Infinity;
    for (let k = 0; k < s.count; k++) {
      const i = (s.start + k) % CAPACITY;
      const t = s.t[i];
      if (t < start) continue;
      const px = x(t);
      // Less than half a pixel from the previous point: nothing visible to add.
      if (px - lastX < 0.5 && k !== s.count - 1) continue;
      lastX = px;
      if (started) g.lineTo(px, y(s.v[i * 3 + a])); else { g.moveTo(px, y(s.v[i * 3 + a])); started = true; }
    }
    g.stroke();
  }
}

function animate(time) {
  const began = performance.now();
  state.rafCount++;
  if (time - state.rafStart >= 1000) {
    state.fps = state.rafCount * 1000 / (time - state.rafStart);
    state.rafCount = 0;
    state.rafStart = time;
    $("fps").textContent = state.fps.toFixed(0) + " fps";
  }
  state.frames++;
  if (state.dirty3D && state.attitude) {
    $("phone").style.transform = cssTransform(state.attitude);
    setText("euler", eulerText(state.attitude));
    state.dirty3D = false;
  }
  const north = NORTH_FRAMES.has(state.frame);
  if (north && state.heading !== null && state.heading >= 0) {
    $("rose").style.transform = "rotate(" + (-state.heading).toFixed(1) + "deg)";
    setText("heading", state.heading.toFixed(1) + "°");
  } else {
    setText("heading", "–");
  }
  setText("field-accuracy", state.fieldAccuracy === null ? "–" : ACCURACY_NAMES[String(state.fieldAccuracy)] || "–");
  // Plots are redrawn only when something changed: frames arrive ~30 times a second, the
  // animation runs at the display's rate.
  const end = state.paused ? state.pausedAt : state.latestTime;
  const autoscale = $("autoscale").checked;
  const changed = (!state.paused && state.dataVersion !== state.drawnVersion) || autoscale !== state.drawnAutoscale
    || state.redraw;
  if (end !== null && changed) {
    for (const plot of plots) drawPlot(plot, end);
    state.drawnVersion = state.dataVersion;
    state.drawnAutoscale = autoscale;
    state.redraw = false;
  }
  // Main-thread time spent per animation frame, for the benchmark (independent of machine load).
  state.workMs += performance.now() - began;
  requestAnimationFrame(animate);
}

// --- History (daemon only) -----------------------------------------------------------------

async function loadHistory() {
  try {
    const response = await fetch("/api/history" + tokenQuery(), { cache: "no-store" });
    if (!response.ok) { $("history-panel").hidden = true; return; }
    state.history = await response.json();
    drawHistory(state.history);
    state.historyLoads++;
    refreshSelectedDay(state.history.days.slice(-7));
  } catch (error) {
    $("history-panel").hidden = true;
  }
}

// The activity columns of the history's table, in the order of Apple's CMMotionActivity flags.
const historyActivities = ["stationary", "walking", "running", "cycling", "automotive", "unknown"];

/// "2 h 05", "12 min", "< 1 min" or "–" for `seconds` spent in an activity on a day. A moment
/// in two activities (a car stopped at a light: automotive and stationary) counts in both.
function formatActivityTime(seconds) {
  if (!(seconds > 0)) return "–";
  const minutes = Math.round(seconds / 60);
  if (minutes < 1) return "< 1 min";
  if (minutes < 60) return minutes + " min";
  return Math.floor(minutes / 60) + " h " + String(minutes % 60).padStart(2, "0");
}

function drawActivityTable(days) {
  $("activity-rows").replaceChildren(...days.slice().reverse().map((day) => {
    const row = document.createElement("tr");
    row.dataset.date = day.date;
    const cells = [day.date.slice(5)].concat(
      historyActivities.map((name) => formatActivityTime((day.activitySeconds || {})[name])));
    cells.forEach((text, index) => {
      const cell = document.createElement(index === 0 ? "th" : "td");
      cell.textContent = text;
      if (index > 0) cell.dataset.activity = historyActivities[index - 1];
      row.append(cell);
    });
    return row;
  }));
}

function drawHistory(history) {
  const canvas = $("history-chart");
  const ratio = window.devicePixelRatio || 1;
  canvas.width = Math.round(canvas.clientWidth * ratio);
  canvas.height = Math.round(canvas.clientHeight * ratio);
  const g = canvas.getContext("2d");
  const days = history.days.slice(-7);
  // What the bars show, for screen readers (the canvas has no text of its own) and for tests.
  canvas.setAttribute("aria-label", "Steps per day: " + days.map((d) => d.date + " " + d.steps).join(", "));
  canvas.dataset.days = JSON.stringify(days.map((d) => [d.date, d.steps]));
  const most = Math.max(1, ...days.map((d) => d.steps));
  const barWidth = canvas.width / Math.max(7, days.length);
  g.font = (10 * ratio) + "px sans-serif";
  days.forEach((day, index) => {
    const h = (canvas.height - 24 * ratio) * day.steps / most;
    // The day shown in detail below stands out.
    g.fillStyle = day.date === state.selectedDay ? palette.accent : palette.z;
    g.fillRect(index * barWidth + 4, canvas.height - 14 * ratio - h, barWidth - 8, h);
    g.fillStyle = palette.muted;
    g.fillText(day.date.slice(5), index * barWidth + 4, canvas.height - 3 * ratio);
    g.fillText(String(day.steps), index * barWidth + 4, canvas.height - 16 * ratio - h);
  });
  drawActivityTable(days);
  drawDayPicker(days);
  const extent = history.recorderStart && history.recorderEnd
    ? new Date(history.recorderStart * 1000).toLocaleString() + " – " + new Date(history.recorderEnd * 1000).toLocaleString()
    : "not recording";
  $("recorder-extent").textContent = extent;
  $("client-list").replaceChildren(...history.clients.map((client) => {
    const item = document.createElement("li");
    // Some clients already name their process id (the daemon's own connections do).
    const pid = client.processIdentifier && !client.name.includes("(pid ")
      ? " (pid " + client.processIdentifier + ")" : "";
    item.textContent = client.name + pid
      + (client.rate ? " · " + client.rate + " Hz" : "");
    return item;
  }));
}

// --- One day in detail (the history panel's drill-down, daemon only) -------------------------

// The timeline's colour for each activity (the legend under it uses the same, from the CSS).
function activityColor(name) {
  return { stationary: palette.muted, walking: palette.y, running: palette.x, cycling: palette.accent,
           automotive: palette.z }[name] || "#d97706";
}

// One button per day under the chart, so that a day can be chosen with the keyboard too. Kept
// when the days are the same (a reload every 10 s must not take the focus away from a button).
function drawDayPicker(days) {
  const picker = $("day-picker");
  const dates = days.map((d) => d.date);
  const shown = Array.from(picker.children, (button) => button.dataset.date);
  if (shown.join() !== dates.join()) {
    picker.replaceChildren(...dates.map((date, index) => {
      const button = document.createElement("button");
      button.type = "button";
      button.dataset.date = date;
      button.textContent = index === dates.length - 1 ? "today" : date.slice(5);
      button.setAttribute("aria-label", "Show " + date + " by hour");
      button.addEventListener("click", () => selectDay(date));
      return button;
    }));
  }
  for (const button of picker.children) {
    button.setAttribute("aria-pressed", String(button.dataset.date === state.selectedDay));
  }
}

function selectDay(date) {
  state.selectedDay = date;
  if (state.history) drawHistory(state.history);
  const days = state.history ? state.history.days : [];
  loadDay(date, days.length > 0 && days[days.length - 1].date === date);
}

// After each reload of the history: today's detail follows the steps being counted; a past
// day's does not change, so it is fetched once (once more if it was fetched while it was still
// today: the page stayed open past midnight); a day that is no longer one of the seven (the
// page stayed open past midnight for a week) is let go.
function refreshSelectedDay(days) {
  const date = state.selectedDay;
  if (!date) return;
  if (!days.some((d) => d.date === date)) {
    state.selectedDay = null;
    state.dayDetail = null;
    $("day-detail").hidden = true;
    drawHistory(state.history);
    return;
  }
  const isToday = days[days.length - 1].date === date;
  const shown = state.dayDetail && state.dayDetail.date === date;
  if (isToday || !shown || state.dayDetailWasToday) loadDay(date, isToday);
}

// Fetches `date`'s detail and draws it, unless another request was made meanwhile (its answer,
// not this one, is drawn: answers can come back out of order). A failed refresh of the day
// shown keeps what is shown; a day that cannot be had is said so, with its charts cleared.
async function loadDay(date, isToday) {
  const seq = ++state.daySeq;
  const token = tokenQuery();
  const query = "?date=" + encodeURIComponent(date) + (token ? "&" + token.slice(1) : "");
  let detail = null;
  try {
    const response = await fetch("/api/history/day" + query, { cache: "no-store" });
    if (response.ok) detail = await response.json();
  } catch (error) {
    detail = null;
  }
  if (seq !== state.daySeq || state.selectedDay !== date) return;
  if (detail) {
    state.dayDetail = detail;
    state.dayDetailWasToday = isToday;
    drawDay(detail);
    state.dayLoads++;
  } else if (!state.dayDetail || state.dayDetail.date !== date) {
    state.dayDetail = null;
    clearDay(date);
  }
}

// The day section with nothing to show for `date`: no bars, no segments, no stale labels.
function clearDay(date) {
  const section = $("day-detail");
  section.hidden = false;
  section.dataset.date = date;
  setText("day-detail-date", date + " (no detail)");
  for (const id of ["hour-chart", "day-timeline"]) {
    const canvas = $(id);
    canvas.getContext("2d").clearRect(0, 0, canvas.width, canvas.height);
    canvas.setAttribute("aria-label", "No detail for " + date);
  }
  $("hour-chart").dataset.hours = "[]";
  $("day-timeline").dataset.segments = "[]";
  $("day-timeline-list").replaceChildren();
}

// "HH:MM" on the daemon's clock for a time within the day: from the hour it falls in (the
// hours carry the daemon's local hour, which the browser's time zone might not share).
function clockTime(detail, t) {
  if (t >= detail.end) return "24:00";
  let hour = detail.hours[0];
  for (const h of detail.hours) if (h.start <= t) hour = h;
  if (!hour) return "–";
  const minutes = Math.min(59, Math.max(0, Math.floor((t - hour.start) / 60)));
  return String(hour.hour).padStart(2, "0") + ":" + String(minutes).padStart(2, "0");
}

function sizeCanvas(canvas, ratio) {
  canvas.width = Math.max(1, Math.round(canvas.clientWidth * ratio));
  canvas.height = Math.max(1, Math.round(canvas.clientHeight * ratio));
  return canvas.getContext("2d");
}

function drawDay(detail) {
  const section = $("day-detail");
  section.hidden = false;
  section.dataset.date = detail.date;
  const total = detail.hours.reduce((sum, h) => sum + h.steps, 0);
  setText("day-detail-date", detail.date + " · " + total + " steps");
  const ratio = window.devicePixelRatio || 1;

  // Steps per hour.
  const chart = $("hour-chart");
  const g = sizeCanvas(chart, ratio);
  const hours = detail.hours;
  chart.setAttribute("aria-label", "Steps per hour on " + detail.date + ": "
    + hours.map((h) => String(h.hour).padStart(2, "0") + ":00 " + h.steps).join(", "));
  chart.dataset.hours = JSON.stringify(hours);
  const most = Math.max(1, ...hours.map((h) => h.steps));
  const barWidth = chart.width / Math.max(24, hours.length);
  g.font = (10 * ratio) + "px sans-serif";
  hours.forEach((hour, index) => {
    const h = (chart.height - 24 * ratio) * hour.steps / most;
    g.fillStyle = palette.z;
    g.fillRect(index * barWidth + 1, chart.height - 14 * ratio - h, Math.max(1, barWidth - 2), h);
    g.fillStyle = palette.muted;
    if (hour.hour % 3 === 0 && (index === 0 || hours[index - 1].hour !== hour.hour)) {
      g.fillText(String(hour.hour).padStart(2, "0"), index * barWidth + 1, chart.height - 3 * ratio);
    }
    if (hour.steps > 0 && hour.steps === most) {
      g.fillText(String(hour.steps), index * barWidth + 1, chart.height - 16 * ratio - h);
    }
  });

  // The activity timeline over the day: a change's activities share its height (stationary in
  // a car shows both colours), stretches with none stay empty.
  const timeline = $("day-timeline");
  const t = sizeCanvas(timeline, ratio);
  const span = Math.max(1, detail.end - detail.start);
  const x = (time) => (time - detail.start) / span * timeline.width;
  const strip = timeline.height - 13 * ratio;
  t.fillStyle = palette.line;
  t.fillRect(0, strip - 1, timeline.width, 1);
  for (const segment of detail.segments) {
    const names = segment.activities;
    const left = x(segment.start);
    const width = Math.max(1, x(segment.end) - left);
    names.forEach((name, index) => {
      t.fillStyle = activityColor(name);
      t.fillRect(left, strip * index / names.length, width, strip / names.length);
    });
  }
  t.fillStyle = palette.muted;
  t.font = (10 * ratio) + "px sans-serif";
  hours.forEach((hour, index) => {
    if (hour.hour % 6 === 0 && (index === 0 || hours[index - 1].hour !== hour.hour)) {
      t.fillText(String(hour.hour).padStart(2, "0"), x(hour.start), timeline.height - 2 * ratio);
    }
  });
  const described = detail.segments.map((segment) =>
    clockTime(detail, segment.start) + "–" + clockTime(detail, segment.end) + " "
    + (segment.activities.length ? segment.activities.join(" and ") : "no activity")
    + (segment.confidence ? " (" + segment.confidence + ")" : ""));
  timeline.setAttribute("aria-label", "Activity on " + detail.date + ": "
    + (described.length ? described.join("; ") : "nothing recorded"));
  timeline.dataset.segments = JSON.stringify(detail.segments);
  $("day-timeline-list").replaceChildren(...(described.length ? described : ["nothing recorded"]).map((text) => {
    const item = document.createElement("li");
    item.textContent = text;
    return item;
  }));
}

// A click on the steps chart chooses the day of the bar under it.
function onHistoryChartClick(event) {
  const days = state.history ? state.history.days.slice(-7) : [];
  const canvas = $("history-chart");
  if (!days.length || !canvas.clientWidth) return;
  const index = Math.floor(event.offsetX / (canvas.clientWidth / Math.max(7, days.length)));
  if (index >= 0 && index < days.length) selectDay(days[index].date);
}

// --- Controls ------------------------------------------------------------------------------

function setUp() {
  palette = colors();
  window.matchMedia("(prefers-color-scheme: dark)").addEventListener("change", () => { palette = colors(); state.redraw = true; });
  window.addEventListener("resize", () => { state.redraw = true; });
  $("frame-select").addEventListener("change", (e) => send({ op: "setFrame", frame: e.target.value }));
  $("rate-select").addEventListener("change", (e) => send({ op: "setRate", rate: Number(e.target.value) }));
  $("scenario-select").addEventListener("change", (e) => send({ op: "setScenario", scenario: e.target.value }));
  $("record-button").addEventListener("click", () => {
    const active = $("record-button").classList.contains("active");
    send(active ? { op: "stopRecording" } : { op: "startRecording", name: $("record-name").value || undefined });
  });
  $("history-chart").addEventListener("click", onHistoryChartClick);
  $("pause-button").addEventListener("click", () => {
    state.paused = !state.paused;
    state.pausedAt = state.latestTime;
    $("pause-button").textContent = state.paused ? "Resume" : "Pause";
  });
  connect();
  requestAnimationFrame(animate);
}

document.addEventListener("DOMContentLoaded", setUp);
