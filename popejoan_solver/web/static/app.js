// The web table's page: it draws what the server answers and asks it for every rule
// (legal leads, runs, values, settlements); nothing of the game is computed here.
"use strict";

const SUITS = { C: "♣", D: "♦", H: "♥", S: "♠" };
const RED = { D: true, H: true };
const SVG = "http://www.w3.org/2000/svg";
const BOT_SECONDS = 2;   // a sampling bot (pimc, strong) stops adding samples after this

const state = {
  deal: null,       // the deal, one-line notation
  line: [],         // steps played from it
  seat: null,       // the seat a person plays (1-based) or null
  view: "referee",
  bot: "strong",
  table: null,      // the server's table for the position
  analysis: null,   // the server's solution of the position (null until analysed)
  known: null,      // what the person's seat knows (POST /api/view), when playing
  session: { deals: 0, total: 0, index: 0 },  // deals finished in this session, the person's counters
  plan: null,       // {from, steps}: the optimal line being stepped through
  busy: 0,
  ready: 0,         // positions fully shown (table, analysis, bots' moves)
};

const $ = (id) => document.getElementById(id);

// This tab's name for the server, which serves its clients in turn (a random id, kept while
// the tab lives): one tab's many requests do not hold up another's.
const CLIENT_ID = (() => {
  try {
    const kept = sessionStorage.getItem("popejoan-client");
    if (kept) return kept;
  } catch (err) { /* storage refused: a new id each load */ }
  const bytes = crypto.getRandomValues(new Uint8Array(12));
  const id = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  try { sessionStorage.setItem("popejoan-client", id); } catch (err) { /* kept for this load */ }
  return id;
})();

// The analysis under way: a newer position stops it (the server stops its search).
let analysing = null;

async function api(path, body, raw, signal) {
  const headers = { "x-client-id": CLIENT_ID };
  const init = body === undefined ? { headers } : {
    method: "POST",
    headers: { ...headers, "content-type": raw ? "text/plain" : "application/json" },
    body: raw ? body : JSON.stringify(body),
  };
  if (signal) init.signal = signal;
  state.busy += 1;
  document.body.classList.add("busy");
  try {
    const response = await fetch(path, init);
    const text = await response.text();
    let data;
    try {
      data = JSON.parse(text);
    } catch (err) {   // not the server's JSON (a proxy's page, say)
      data = { error: `HTTP ${response.status}: ${text.slice(0, 200)}` };
    }
    if (!response.ok) throw new Error(data.error || `HTTP ${response.status}`);
    return data;
  } finally {
    state.busy -= 1;
    if (!state.busy) document.body.classList.remove("busy");
  }
}

function showError(message) {
  const box = $("error");
  box.textContent = message ? `error: ${message}` : "";
  box.hidden = !message;
}

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") node.className = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v);
  }
  for (const child of children) {
    if (child !== null && child !== undefined) {
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
  }
  return node;
}

function svg(tag, attrs, text) {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (text !== undefined) node.textContent = text;
  return node;
}

// One card drawn as SVG: rank and suit from its name ("TD" is the ten of diamonds).
function cardSvg(name, options) {
  const opts = options || {};
  const box = svg("svg", { viewBox: "0 0 60 84", class: "card-face", role: "img",
                           "aria-label": name || "a card face down" });
  if (!name) {
    box.append(svg("rect", { x: 1, y: 1, width: 58, height: 82, rx: 6, class: "back" }));
    box.append(svg("rect", { x: 6, y: 6, width: 48, height: 72, rx: 4, class: "back-inner" }));
    return box;
  }
  const rank = name[0] === "T" ? "10" : name[0];
  const suit = SUITS[name[1]];
  const colour = RED[name[1]] ? "red" : "black";
  box.append(svg("rect", { x: 1, y: 1, width: 58, height: 82, rx: 6, class: "front" }));
  box.append(svg("text", { x: 6, y: 20, class: `rank ${colour}` }, rank));
  box.append(svg("text", { x: 6, y: 36, class: `pip ${colour}` }, suit));
  box.append(svg("text", { x: 30, y: 62, class: `big ${colour}`, "text-anchor": "middle" }, suit));
  if (opts.stop) box.append(svg("circle", { cx: 50, cy: 12, r: 5, class: "stop-mark" }));
  return box;
}

function cardNode(name, options) {
  const opts = options || {};
  const classes = ["card"];
  if (opts.legal) classes.push("legal");
  if (opts.best) classes.push("best");
  if (opts.small) classes.push("small");
  const node = el(opts.legal ? "button" : "span",
                  { class: classes.join(" "), "data-card": name || "" }, cardSvg(name, opts));
  if (opts.legal) {
    node.type = "button";
    node.title = `lead ${name}`;
    node.addEventListener("click", () => chooseLead(name));
  }
  if (opts.value !== undefined) node.append(el("span", { class: "value" }, opts.value));
  return node;
}

function valueText(value) {
  if (value === null || value === undefined) return "";
  if (typeof value === "object") return `${value.lower}..${value.upper}`;
  return String(value);
}

function leadValues() {
  const values = {};
  const a = state.analysis;
  if (!a || !a.leads || !a.leads.length) return { values, best: null };
  let best = null;
  for (const lead of a.leads) {
    values[lead.card] = lead.guaranteed;
    const low = typeof lead.guaranteed === "object" ? null : lead.guaranteed;
    if (low !== null && (best === null || low > best)) best = low;
  }
  return { values, best };
}

function seatTitle(t, s) {
  const names = [];
  if (s.seat === 1) names.push("eldest");
  if (s.seat === t.dealer) names.push("dealer");
  if (state.seat === s.seat) names.push("you");
  else if (state.seat !== null) names.push(`bot: ${state.bot}`);
  return `Seat ${s.seat}` + (names.length ? ` (${names.join(", ")})` : "");
}

function seatNode(t, s) {
  const stops = new Set(state.known ? state.known.stops : t.stops);
  const legal = new Set(t.seat === null || t.seat === t.leader ? t.leads.map((l) => l.card) : []);
  const onLead = !t.over && s.seat === t.leader;
  const { values, best } = leadValues();
  const hand = el("div", { class: "hand" });
  if (s.hand === null) {
    for (let i = 0; i < s.count; i += 1) hand.append(cardNode(null));
  } else {
    for (const card of s.hand) {
      const isLegal = onLead && legal.has(card);
      const value = isLegal && card in values ? valueText(values[card]) : undefined;
      hand.append(cardNode(card, { stop: stops.has(card), legal: isLegal, value,
                                   best: isLegal && best !== null && values[card] === best }));
    }
  }
  const seatValues = state.analysis && state.analysis.seats
    ? state.analysis.seats.find((r) => r.seat === s.seat) : null;
  const facts = el("div", { class: "facts" });
  if (seatValues) {
    facts.append(el("span", { class: "guaranteed" }, `guaranteed ${valueText(seatValues.guaranteed)}`));
    const win = seatValues.forced_win;
    facts.append(el("span", { class: "forced" }, win === true ? "forced win" : win === false ? "" : "forced win ?"));
  }
  const played = el("div", { class: "played" }, ...s.played.map((c) => cardNode(c, { small: true })));
  const classes = ["seat"];
  if (onLead) classes.push("on-lead");
  if (t.winner === s.seat) classes.push("winner");
  return el("div", { class: classes.join(" "), "data-seat": s.seat },
            el("h2", {}, seatTitle(t, s), onLead ? el("span", { class: "lead-mark" }, " to lead") : null,
               t.winner === s.seat ? el("span", { class: "lead-mark" }, " out!") : null),
            facts, hand, played);
}

function centreNode(t) {
  const board = el("div", { class: "board" });
  for (const [name, count] of Object.entries(t.board)) {
    board.append(el("div", { class: "compartment", "data-compartment": name },
                    el("span", { class: "name" }, name), el("span", { class: "count" }, count)));
  }
  const dead = el("div", { class: "dead hand" });
  if (t.dead === null) for (let i = 0; i < t.dead_count; i += 1) dead.append(cardNode(null, { small: true }));
  else for (const c of t.dead) dead.append(cardNode(c, { small: true }));
  const last = t.history.length ? t.history[t.history.length - 1] : null;
  const run = el("div", { class: "run" });
  if (last) {
    run.append(el("div", { class: "caption" }, `seat ${last.seat} led ${last.lead}: ${last.reason}`));
    run.append(el("div", { class: "hand" }, ...last.run.map((c) => cardNode(c, { small: true }))));
  }
  return el("div", { class: "centre" },
            el("div", { class: "turnup" }, el("div", { class: "caption" }, "turn-up"),
               t.turnup ? cardNode(t.turnup) : cardNode(null)),
            el("div", {}, el("div", { class: "caption" }, "board"), board),
            el("div", {}, el("div", { class: "caption" }, `dead hand (${t.dead_count})`), dead),
            run);
}

function render() {
  const t = state.table;
  const table = $("table");
  table.replaceChildren();
  if (!t) return;
  table.className = `players-${t.players}`;
  fillSeats(t.players);
  $("players").value = String(t.players);
  table.append(centreNode(t));
  for (const s of t.seats) table.append(seatNode(t, s));
  const status = t.over
    ? (t.played_out ? `the deal is over: seat ${t.winner} went out` : "the deal is not played (Pope turned up)")
    : `seat ${t.leader} to lead; ${t.line.length} lead(s) played`;
  $("status").textContent = `${t.rules}, ${t.players} players — ${status}`;
  renderHistory(t);
  renderValues();
  renderSettlement(t);
  // Stepping through lines is study: in a game against bots "◀" would only see the bots
  // play again, so the steps are not offered there.
  $("step-controls").querySelectorAll(".step").forEach((b) => { b.hidden = state.seat !== null; });
  if ($("advice-out").dataset.position !== positionKey()) $("advice-out").replaceChildren();
  $("back").disabled = !state.line.length;
  $("to-start").disabled = !state.line.length;
  const next = planned();
  $("forward").disabled = t.over || next === null;
  $("to-end").disabled = t.over || next === null;
  $("share").href = shareUrl();
}

function renderHistory(t) {
  $("history").replaceChildren(...t.history.map((r) =>
    el("li", {}, `seat ${r.seat} leads ${r.step}: ${r.run.join(" ")} — ${r.out ? `seat ${r.out} is out` : r.reason}`)));
}

function renderValues() {
  const a = state.analysis;
  const box = $("values");
  box.replaceChildren();
  if (!a) return;
  const rows = a.seats.map((s) => el("tr", {}, el("td", {}, s.seat), el("td", {}, valueText(s.guaranteed)),
    el("td", {}, s.forced_win === true ? "yes" : s.forced_win === false ? "no" : "?"),
    el("td", {}, valueText(s.best_case))));
  box.append(el("table", { class: "values" },
    el("thead", {}, el("tr", {}, el("th", {}, "seat"), el("th", {}, "guaranteed"),
                       el("th", {}, "forced win"), el("th", {}, "best case"))),
    el("tbody", {}, ...rows)));
  box.append(el("p", { class: "note" }, a.stats.exact
    ? `exact: ${a.stats.nodes} nodes, ${a.stats.seconds} s`
    : "bounds: the time limit ran out"));
}

function renderSettlement(t) {
  const box = $("settlement");
  box.replaceChildren();
  if (state.seat !== null && state.session.deals) {
    box.append(el("p", { class: "session" }, `session: deal ${state.session.deals + 1}; your counters so far ${state.session.total} (play and turn-ups; the dressing aside)`));
  }
  if (!t.settlement) return;
  box.append(el("h3", {}, "Settlement"));
  box.append(el("ul", {}, ...t.settlement.transfers.map((x) =>
    el("li", {}, `${typeof x.from === "number" ? "seat " + x.from : x.from} → ${typeof x.to === "number" ? "seat " + x.to : x.to}: ${x.amount} (${x.reason})`))));
  box.append(el("p", { class: "net" }, "net: " + t.settlement.values.map((v, i) => `seat ${i + 1} ${v > 0 ? "+" : ""}${v}`).join(", ")));
  if (state.seat !== null) box.append(el("button", { id: "next-deal", type: "button", onclick: nextDeal }, "Next deal of the session"));
}

async function nextDeal() {
  try {
    const t = state.table;
    const answer = await api("/api/next", { deal: state.deal, line: state.line, seat: state.seat,
      seed: Number($("seed").value) || 0, index: state.session.index + 1, session: state.session.deals });
    state.session = { deals: state.session.deals + 1, index: state.session.index + 1,
                      total: state.session.total + t.settlement.values[state.seat - 1] };
    state.seat = answer.seat;
    await startDeal(answer.deal, []);
  } catch (err) {
    showError(err.message);
  }
}

// The next step of the optimal line being stepped through, or null.
function planned() {
  const p = state.plan;
  if (!p) return null;
  const k = state.line.length - p.from;
  if (k < 0 || k >= p.steps.length) return null;
  for (let i = 0; i < p.from; i += 1) if (p.prefix[i] !== state.line[i]) return null;
  for (let i = 0; i < k; i += 1) if (p.steps[i] !== state.line[p.from + i]) return null;
  return p.steps[k];
}

function shareUrl() {
  const q = new URLSearchParams();
  q.set("deal", state.deal);
  if (state.line.length) q.set("line", state.line.join(","));
  if (state.view !== "referee") q.set("view", state.view);
  if (state.seat !== null) { q.set("seat", state.seat); q.set("bot", state.bot); }
  return `/?${q.toString()}`;
}

async function refresh() {
  if (analysing) analysing.abort();   // its position is no longer shown
  try {
    const body = { deal: state.deal, line: state.line, view: state.view };
    if (state.seat !== null) body.seat = state.seat;
    state.table = await api("/api/table", body);
    showError("");
    history.replaceState(null, "", shareUrl());
    const watching = state.seat === null;
    state.analysis = null;
    render();
    if (watching && $("auto").checked && !state.table.over) await analyse();
    if (!watching) { await botsPlay(); await showView(); render(); }
  } catch (err) {
    showError(err.message);
  } finally {
    // Tests (and anyone scripting the page) wait for this count to move on.
    state.ready += 1;
    document.body.dataset.ready = String(state.ready);
  }
}

async function analyse() {
  const t = state.table;
  if (!t || t.over) return;
  if (analysing) analysing.abort();
  const mine = new AbortController();
  analysing = mine;
  try {
    const a = await api("/api/analyse", { deal: state.deal, line: state.line }, false, mine.signal);
    if (state.table !== t) return;   // the position changed meanwhile
    state.analysis = a;
    if (planned() === null && a.line.length) {
      state.plan = { from: state.line.length, prefix: state.line.slice(), steps: a.line.map((s) => s.step) };
    }
    render();
  } catch (err) {
    if (err.name !== "AbortError") showError(err.message);
  } finally {
    if (analysing === mine) analysing = null;
  }
}

async function play(step) {
  state.line = state.line.concat([step]);
  await refresh();
}

async function chooseLead(card) {
  const lead = state.table.leads.find((l) => l.card === card);
  if (!lead) return;
  if (lead.runs.length === 1) return play(lead.runs[0].step);
  // A choice inside the run (Spin, the Pope in lieu of a stop): the person picks the run.
  const pick = el("div", { class: "choices" }, el("p", {}, `${card}: which run?`),
    ...lead.runs.map((r) => el("button", { type: "button", onclick: () => { pick.remove(); play(r.step); } },
                               `${r.step}: ${r.run.join(" ")}`)));
  $("table").prepend(pick);
}

async function botsPlay() {
  // Bots lead in turn until the person's seat is to lead or the deal is over.
  while (state.table && !state.table.over && state.seat !== null && state.table.leader !== state.seat) {
    const t = state.table;
    const answer = await api("/api/bot", { deal: state.deal, line: state.line, bot: state.bot,
                                           seed: Number($("seed").value) || 0, time_limit: BOT_SECONDS });
    if (state.table !== t) return;
    state.line = state.line.concat([answer.step]);
    const body = { deal: state.deal, line: state.line, view: state.view, seat: state.seat };
    state.table = await api("/api/table", body);
    history.replaceState(null, "", shareUrl());
    render();
  }
}

async function startDeal(deal, line) {
  state.deal = deal;
  state.line = line || [];
  state.plan = null;
  $("advice-out").replaceChildren();
  await refresh();
}

async function newDeal() {
  state.session = { deals: 0, total: 0, index: 0 };
  try {
    const q = new URLSearchParams({ players: $("players").value, seed: $("seed").value || "0",
                                    rules: $("rules").value });
    const answer = await api(`/api/deal?${q}`);
    await startDeal(answer.deal, []);
  } catch (err) {
    showError(err.message);
  }
}

async function loadPasted() {
  state.session = { deals: 0, total: 0, index: 0 };
  try {
    const answer = await api("/api/load", $("paste").value, true);
    await startDeal(answer.deal, answer.line);
    if (answer.error) showError(answer.error);
  } catch (err) {
    showError(err.message);
    state.ready += 1;
    document.body.dataset.ready = String(state.ready);
  }
}

async function checkPasted() {
  const out = $("check-out");
  out.replaceChildren();
  try {
    const result = await api("/api/check", $("paste").value, true);
    const lines = [result.legal ? "legal: every play follows the rules" : "ILLEGAL"];
    if (result.error) lines.push(`deal ${result.error.deal}${result.error.play ? `, play ${result.error.play}` : ""}: ${result.error.rule}: ${result.error.message}`);
    lines.push(`totals: ${result.totals.map((v, i) => `${result.players[i]} ${v}`).join(", ")}`);
    out.append(...lines.map((l) => el("p", { class: result.legal ? "legal" : "illegal" }, l)));
    showError("");
  } catch (err) {
    showError(err.message);
  }
}

// The position shown, as a key: advice is for one position and goes once another is shown.
function positionKey() {
  return `${state.deal}|${state.line.join(",")}`;
}

async function advice() {
  const out = $("advice-out");
  out.replaceChildren();
  const asked = positionKey();
  try {
    const a = await api("/api/advice", { deal: state.deal, line: state.line,
                                         seed: Number($("seed").value) || 0 });
    if (asked !== positionKey()) return;   // a move was made meanwhile: this advice is stale
    out.dataset.position = asked;
    const pct = (x) => `${Math.round(100 * x)}%`;
    out.append(el("h3", {}, `Advice for seat ${a.seat}`),
               el("p", { class: "note" }, `${a.deals} deals sampled among the ${bigCount(a.consistent_deals)} it cannot tell apart (${a.model} opponents)`),
               el("ul", {}, ...a.leads.map((l) => el("li", { class: l.card === a.advised ? "best" : "", "data-card": l.card },
                 `${l.card}: mean ${l.mean === null ? "?" : l.mean.toFixed(2)}, best in ${pct(l.best_share)}, forced win ${pct(l.forced_win_rate)}`))),
               el("p", {}, `advised: ${a.advised}; Hoyle: ${a.hoyle} (${a.hoyle_maxim})`));
  } catch (err) {
    showError(err.message);
  }
}

// A count of deals as a person reads it (they run past 10^20).
function bigCount(n) {
  return n < 1e6 ? String(n) : `about ${Number(n).toPrecision(2).replace("e+", " × 10^")}`;
}

async function showView() {
  const out = $("view-out");
  out.replaceChildren();
  state.known = null;
  if (state.seat === null || !state.table || state.table.over) return;
  const k = await api("/api/view", { deal: state.deal, line: state.line, seat: state.seat });
  state.known = k;
  out.append(el("h3", {}, `What seat ${k.seat} knows`),
             el("p", {}, `${bigCount(k.consistent_deals)} deals it cannot tell apart`),
             el("p", {}, `known dead: ${k.known_dead.join(" ") || "none"}`),
             ...k.inferences.map((i) => el("p", { class: "note" }, typeof i === "string" ? i : (i.text || JSON.stringify(i)))));
}

async function downloadRecord() {
  try {
    const answer = await api("/api/record", { deal: state.deal, line: state.line });
    const blob = new Blob([JSON.stringify(answer.record, null, 2) + "\n"], { type: "application/json" });
    const link = el("a", { href: URL.createObjectURL(blob), download: "popejoan-record.json" });
    document.body.append(link);
    link.click();
    link.remove();
  } catch (err) {
    showError(err.message);
  }
}

function stepTo(line) {
  state.line = line;
  return refresh();
}

function bind() {
  $("new-deal").addEventListener("click", newDeal);
  $("load").addEventListener("click", loadPasted);
  $("check").addEventListener("click", checkPasted);
  $("analyse").addEventListener("click", analyse);
  $("advice").addEventListener("click", advice);
  $("record").addEventListener("click", downloadRecord);
  $("back").addEventListener("click", () => stepTo(state.line.slice(0, -1)));
  $("to-start").addEventListener("click", () => stepTo([]));
  $("forward").addEventListener("click", () => { const next = planned(); if (next) play(next); });
  $("to-end").addEventListener("click", () => {
    const p = state.plan;
    if (planned() !== null) stepTo(p.prefix.concat(p.steps));
  });
  $("referee").addEventListener("change", () => {
    state.view = $("referee").checked ? "referee" : "player";
    refresh();
  });
  $("seat").addEventListener("change", () => {
    state.seat = $("seat").value ? Number($("seat").value) : null;
    if (state.seat !== null) { state.view = "player"; $("referee").checked = false; }
    refresh();
  });
  $("bot").addEventListener("change", () => { state.bot = $("bot").value; refresh(); });
  $("upload").addEventListener("change", async () => {
    const file = $("upload").files[0];
    if (file) $("paste").value = await file.text();
  });
}

async function fillOptions(query) {
  const options = await api("/api/options");
  $("rules").replaceChildren(...options.rules.map((r) => el("option", { value: r }, r)));
  $("players").replaceChildren(...options.players.map((n) => el("option", { value: n }, n)));
  $("players").value = "4";
  $("bot").replaceChildren(...options.bots.map((b) => el("option", { value: b }, b)));
  state.bot = query.get("bot") || options.bots[0] || "";
  $("bot").value = state.bot;
}

function fillSeats(players) {
  const select = $("seat");
  const keep = select.value;
  select.replaceChildren(el("option", { value: "" }, "no seat (watch)"));
  for (let s = 1; s <= players; s += 1) select.append(el("option", { value: s }, `seat ${s}`));
  select.value = state.seat !== null ? String(state.seat) : keep && Number(keep) <= players ? keep : "";
}

async function main() {
  bind();
  const query = new URLSearchParams(location.search);
  try {
    await fillOptions(query);
  } catch (err) {
    showError(err.message);
  }
  state.view = query.get("view") === "player" ? "player" : "referee";
  $("referee").checked = state.view === "referee";
  state.seat = query.get("seat") ? Number(query.get("seat")) : null;
  const line = query.get("line") ? query.get("line").split(",").filter((s) => s) : [];
  if (query.get("deal")) await startDeal(query.get("deal"), line);
  else await newDeal();
}

main();
