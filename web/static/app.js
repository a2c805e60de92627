// BoardZoo in the browser: lobby, table (play or watch) and replay viewer, switched by the URL's # part.
// Plain JS, no build step. A human seat's token lives only in the # part, which is never sent to the server
// except with that seat's own requests.
"use strict";

const $ = (id) => document.getElementById(id);
const POLL_MS = 350;
let envs = [];
let poll = null;

function show(section) {
  for (const s of ["lobby", "table", "replay"]) $(s).hidden = s !== section;
}

function setError(msg) {
  $("error").textContent = msg || "";
  $("error").hidden = !msg;
}

async function api(method, path, body) {
  const init = { method, headers: {} };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = typeof body === "string" ? body : JSON.stringify(body);
  }
  const r = await fetch(path, init);
  const text = await r.text();
  let data = null;
  try { data = JSON.parse(text); } catch (e) { data = text; }
  if (!r.ok) throw new Error((data && data.error) || `${r.status} ${r.statusText}`);
  return data;
}

function parseHash() {
  const h = location.hash.replace(/^#/, "") || "/";
  const [path, query] = h.split("?");
  return { parts: path.split("/").filter(Boolean), params: new URLSearchParams(query || "") };
}

function seatName(view, s) {
  return `P${s} (${view.seats ? view.seats[s] : "seat"})`;
}

// ------------------------------------------------------------------ lobby
async function showLobby() {
  show("lobby");
  if (!envs.length) envs = (await api("GET", "/api/envs")).filter((e) => !e.error);
  const sel = $("game");
  if (!sel.options.length) {
    for (const e of envs) sel.add(new Option(`${e.name} (${e.env_id})`, e.env_id));
    const body = $("games").tBodies[0];
    for (const e of envs) {
      const tr = body.insertRow();
      tr.insertCell().textContent = e.name;
      tr.insertCell().textContent = e.env_id;
      tr.insertCell().textContent = `${e.players[0]}-${e.players[1]}`;
      tr.insertCell().textContent = e.neural ? "yes" : "-";
      const b = document.createElement("button");
      b.type = "button";
      b.textContent = "Rules";
      b.onclick = () => toggleRules(e.env_id, $("rules-lobby"));
      tr.insertCell().appendChild(b);
    }
    const first = envs.find((e) => e.env_id === "hidden_castle_v0");
    if (first) sel.value = first.env_id;
    sel.onchange = () => fillForm(true);
    $("players").onchange = () => fillForm(false);
    fillForm(true);
  }
}

function currentEnv() {
  return envs.find((e) => e.env_id === $("game").value);
}

function fillForm(newGame) {
  const env = currentEnv();
  const players = $("players");
  players.min = env.players[0];
  players.max = env.players[1];
  if (newGame) players.value = Math.max(env.players[0], Math.min(2, env.players[1]));
  const n = Math.max(env.players[0], Math.min(env.players[1], parseInt(players.value, 10) || env.default_players));
  players.value = n;
  const seats = $("seats");
  const old = [...seats.querySelectorAll("select")].map((s) => s.value);
  seats.querySelectorAll("div").forEach((d) => d.remove());
  for (let i = 0; i < n; i++) {
    const row = document.createElement("div");
    row.className = "seat-row";
    const sel = document.createElement("select");
    sel.id = `seat-${i}`;
    for (const kind of env.bots) {
      if (kind === "neural" && !env.neural) continue;
      sel.add(new Option(kind === "mcts" ? "mcts (search)" : kind === "neural" ? "neural (shipped bot)" : kind, kind));
    }
    sel.value = old[i] || (i === 0 ? "human" : "random");
    const sims = document.createElement("input");
    sims.type = "number"; sims.min = 1; sims.max = 2000; sims.value = 50; sims.id = `sims-${i}`;
    sims.title = "MCTS simulations per decision";
    sims.hidden = sel.value !== "mcts";
    sel.onchange = () => { sims.hidden = sel.value !== "mcts"; };
    row.append(`seat ${i} `, sel, sims);
    seats.appendChild(row);
  }
  if (newGame) {
    const box = $("options");
    box.querySelectorAll("label").forEach((l) => l.remove());
    for (const [key, o] of Object.entries(env.options)) {
      const label = document.createElement("label");
      label.title = o.help || "";
      let input;
      if (o.choices) {
        input = document.createElement("select");
        for (const c of o.choices) input.add(new Option(String(c), JSON.stringify(c)));
        input.value = JSON.stringify(o.default);
      } else if (o.type === "bool") {
        input = document.createElement("input");
        input.type = "checkbox";
        input.checked = !!o.default;
      } else {
        input = document.createElement("input");
        input.type = o.type === "str" ? "text" : "number";
        if (o.type === "float") input.step = "any";
        input.value = o.default;
      }
      input.dataset.option = key;
      input.dataset.type = o.type;
      label.append(key + " ", input);
      box.appendChild(label);
    }
  }
}

function readOptions() {
  const out = {};
  for (const el of $("options").querySelectorAll("[data-option]")) {
    const env = currentEnv();
    const o = env.options[el.dataset.option];
    let v;
    if (el.tagName === "SELECT") v = JSON.parse(el.value);
    else if (el.type === "checkbox") v = el.checked;
    else if (o.type === "int") v = parseInt(el.value, 10);
    else if (o.type === "float") v = parseFloat(el.value);
    else v = el.value;
    if (JSON.stringify(v) !== JSON.stringify(o.default)) out[el.dataset.option] = v;
  }
  return out;
}

async function startGame(ev) {
  ev.preventDefault();
  setError("");
  const n = parseInt($("players").value, 10);
  const seats = [];
  for (let i = 0; i < n; i++) {
    const kind = $(`seat-${i}`).value;
    seats.push(kind === "mcts" ? `mcts:${$(`sims-${i}`).value}` : kind);
  }
  const body = { env_id: $("game").value, num_players: n, seats, options: readOptions() };
  if ($("seed").value !== "") body.seed = parseInt($("seed").value, 10);
  try {
    const r = await api("POST", "/api/games", body);
    const humans = Object.keys(r.tokens).map(Number).sort((a, b) => a - b);
    for (const s of humans.slice(1)) window.open(`#/game/${r.game_id}?seat=${s}&token=${r.tokens[s]}`, "_blank");
    location.hash = humans.length
      ? `#/game/${r.game_id}?seat=${humans[0]}&token=${r.tokens[humans[0]]}`
      : `#/game/${r.game_id}`;
  } catch (e) {
    setError(e.message);
  }
}

async function openReplayFile() {
  setError("");
  const f = $("record-file").files[0];
  if (!f) return setError("choose a record file first");
  try {
    const r = await api("POST", "/api/replays", await f.text());
    location.hash = `#/replay/${r.replay_id}`;
  } catch (e) {
    setError(`record refused: ${e.message}`);
  }
}

async function toggleRules(envId, box) {
  if (!box.hidden && box.dataset.env === envId) { box.hidden = true; return; }
  try {
    box.textContent = await api("GET", `/api/envs/${envId}/rules`);
    box.dataset.env = envId;
    box.hidden = false;
    box.scrollIntoView({ behavior: "smooth" });
  } catch (e) {
    setError(e.message);
  }
}

// ------------------------------------------------------------------ table
const table = { id: null, seat: null, token: null, move: -1, busy: false, view: null };

function showTable(id, params) {
  show("table");
  Object.assign(table, { id, seat: params.has("seat") ? parseInt(params.get("seat"), 10) : null,
    token: params.get("token"), move: -1, busy: false, view: null });
  $("rules").hidden = true;
  $("log").replaceChildren();
  $("moves").replaceChildren();
  $("banner").hidden = true;
  refreshTable();
  poll = setInterval(refreshTable, POLL_MS);
}

function tableQuery() {
  return table.seat === null ? "" : `?seat=${table.seat}&token=${encodeURIComponent(table.token)}`;
}

async function refreshTable() {
  if (table.busy) return;
  try {
    const v = await api("GET", `/api/games/${table.id}${tableQuery()}`);
    if (table.busy) return; // a move is on its way; its answer is newer
    renderTable(v);
  } catch (e) {
    setError(e.message);
    clearInterval(poll);
  }
}

function renderTable(v) {
  if (v.move < table.move) return; // an answer that left before a newer one: moves only go forward
  const changed = v.move !== table.move || !table.view || table.view.over !== v.over;
  table.view = v;
  const sec = $("table");
  sec.dataset.move = v.move;
  if (!changed) return;
  table.move = v.move;
  const you = v.you === null ? "watching" : `you are P${v.you}`;
  const lineup = v.seats.map((k, s) => `P${s} ${s === v.you ? "you" : k}`).join(", ");
  $("table-title").textContent = `${v.name} - ${you} (${lineup})`;
  $("board").src = `/api/games/${table.id}/board.png?m=${v.move}`;
  $("public").textContent = v.public_text;
  $("private-box").hidden = !v.private_text;
  $("private").textContent = v.private_text;
  const moves = $("moves");
  moves.replaceChildren();
  for (const m of v.legal) {
    const b = document.createElement("button");
    b.type = "button";
    b.className = "move";
    b.dataset.action = m.action;
    b.textContent = m.name;
    b.onclick = () => play(m.action);
    moves.appendChild(b);
  }
  if (!v.legal.length) moves.textContent = v.over ? "The game is over." : "Not your move.";
  let state;
  if (v.over) {
    state = "over";
    const w = v.winners.map((s) => (s === v.you ? `P${s} (you)` : seatName(v, s))).join(", ");
    const scores = v.scores.map((x, s) => `P${s} ${x}`).join(", ");
    const youWon = v.you !== null && v.winners.includes(v.you);
    $("banner").textContent = `Game over. Winner${v.winners.length > 1 ? "s" : ""}: ${w}. Scores: ${scores}.` +
      (v.you === null ? "" : youWon ? " You win!" : " You lose.");
    $("banner").className = "banner " + (youWon ? "won" : "");
    $("banner").hidden = false;
    $("status").textContent = "";
  } else if (v.legal.length) {
    state = "your-move";
    $("status").textContent = `Your move (phase ${v.phase}).`;
  } else {
    state = "waiting";
    $("status").textContent = v.to_move >= 0 ? `${seatName(v, v.to_move)} to move (phase ${v.phase})...` : "...";
  }
  sec.dataset.state = state;
  const log = $("log");
  log.replaceChildren();
  for (const e of v.log) {
    const li = document.createElement("li");
    li.value = e.move + 1;
    li.textContent = e.text;
    if (e.seat === v.you) li.className = "mine";
    log.appendChild(li);
  }
  log.scrollTop = log.scrollHeight;
  const dl = $("download");
  dl.hidden = !v.record_allowed;
  dl.href = `/api/games/${table.id}/record`;
  dl.download = `${v.env_id}_record.json`;
  $("to-replay").hidden = !v.over;
}

async function play(action) {
  if (table.busy) return;
  table.busy = true;
  document.querySelectorAll(".move").forEach((b) => { b.disabled = true; });
  setError("");
  try {
    const v = await api("POST", `/api/games/${table.id}/move`,
      { seat: table.seat, token: table.token, action, move: table.move });
    table.busy = false;
    renderTable(v);
  } catch (e) {
    table.busy = false;
    setError(e.message);
    table.move = -1;
    refreshTable();
  }
}

async function toReplay() {
  try {
    const r = await api("POST", `/api/games/${table.id}/replay`);
    location.hash = `#/replay/${r.replay_id}`;
  } catch (e) {
    setError(e.message);
  }
}

// ------------------------------------------------------------------ replay
const rep = { id: null, steps: 0, step: 0, seat: "", names: [], ticket: 0 };

async function showReplay(id) {
  show("replay");
  Object.assign(rep, { id, step: 0, seat: "" });
  try {
    const v = await api("GET", `/api/replays/${id}?step=0`);
    rep.steps = v.steps;
    rep.names = v.names;
    $("replay-title").textContent = `Replay: ${v.name} - ${v.num_players} players - ${v.steps} actions`;
    $("step").max = v.steps;
    const sel = $("view-as");
    sel.replaceChildren(new Option("public", ""));
    for (let s = 0; s < v.num_players; s++) sel.add(new Option(`P${s}`, String(s)));
    const log = $("replay-log");
    log.replaceChildren();
    rep.names.forEach((n, i) => {
      const li = document.createElement("li");
      li.textContent = n;
      li.onclick = () => goStep(i + 1);
      log.appendChild(li);
    });
    $("replay-download").href = `/api/replays/${id}/record`;
    $("replay-download").download = `${v.env_id}_record.json`;
    await goStep(0);
  } catch (e) {
    setError(e.message);
  }
}

async function goStep(k) {
  k = Math.max(0, Math.min(rep.steps, k));
  rep.step = k;
  const ticket = ++rep.ticket;
  $("step").value = k;
  const seat = rep.seat === "" ? "" : `&seat=${rep.seat}`;
  try {
    const v = await api("GET", `/api/replays/${rep.id}?step=${k}${seat}`);
    if (ticket !== rep.ticket) return; // a later step or seat was asked for meanwhile
    $("replay").dataset.step = k;
    $("step-label").textContent = `step ${k} / ${v.steps}`;
    $("last-move").textContent = k ? `after: ${v.last}` : "the start";
    $("replay-board").src = `/api/replays/${rep.id}/board.png?step=${k}`;
    $("replay-public").textContent = v.public_text;
    $("replay-private-box").hidden = !v.private_text;
    $("replay-private").textContent = v.private_text;
    [...$("replay-log").children].forEach((li, i) => li.classList.toggle("current", i === k - 1));
    const banner = $("replay-banner");
    banner.hidden = !v.over;
    if (v.over) {
      banner.textContent = `Game over. Winner${v.winners.length > 1 ? "s" : ""}: ` +
        v.winners.map((s) => `P${s}`).join(", ") + ". Scores: " + v.scores.map((x, s) => `P${s} ${x}`).join(", ") + ".";
    }
  } catch (e) {
    setError(e.message);
  }
}

// ------------------------------------------------------------------ routing
function route() {
  clearInterval(poll);
  setError("");
  const { parts, params } = parseHash();
  if (parts[0] === "game" && parts[1]) return showTable(parts[1], params);
  if (parts[0] === "replay" && parts[1]) return showReplay(parts[1]);
  return showLobby().catch((e) => setError(e.message));
}

$("new-game").addEventListener("submit", startGame);
$("open-replay").onclick = openReplayFile;
$("watch").onclick = (ev) => {
  document.querySelectorAll("#seats select").forEach((s) => { s.value = "heuristic"; s.onchange(); });
  startGame(ev);
};
$("rules-toggle").onclick = () => table.view && toggleRules(table.view.env_id, $("rules"));
$("to-replay").onclick = toReplay;
$("first").onclick = () => goStep(0);
$("prev").onclick = () => goStep(rep.step - 1);
$("next").onclick = () => goStep(rep.step + 1);
$("last").onclick = () => goStep(rep.steps);
$("step").oninput = () => goStep(parseInt($("step").value, 10));
$("view-as").onchange = () => { rep.seat = $("view-as").value; goStep(rep.step); };
window.addEventListener("hashchange", route);
route();
