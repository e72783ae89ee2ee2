// A table for people to play together: the host's form, then each seat's own view, kept up
// to date by the table's stream. The page computes nothing of the game: legal cards, choices,
// payments and totals all come from the server, which sends each seat only what it may know.
"use strict";

const RANKS = {A: "ace", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven",
  8: "eight", 9: "nine", T: "ten", J: "jack", Q: "queen", K: "king"};
const SUITS = {C: ["clubs", "♣"], D: ["diamonds", "♦"], H: ["hearts", "♥"], S: ["spades", "♠"]};
const $ = (id) => document.getElementById(id);

function words(card) { return `${RANKS[card[0]]} of ${SUITS[card[1]][0]}`; }
function face(card) { return `${card[0] === "T" ? "10" : card[0]}${SUITS[card[1]][1]}`; }

function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (key === "class") node.className = value;
    else if (key.startsWith("aria") || key === "role") node.setAttribute(key.replace(/[A-Z]/g, (c) => "-" + c.toLowerCase()), value);
    else node[key] = value;
  }
  for (const child of children) node.append(child);
  return node;
}

function cardNode(card, extra = {}) {
  const red = card[1] === "D" || card[1] === "H";
  return el(extra.button ? "button" : "span", {
    class: `card ${red ? "red" : "black"} ${extra.class || ""}`,
    ariaLabel: words(card) + (extra.note ? `, ${extra.note}` : ""), type: extra.button ? "button" : undefined,
  }, face(card));
}

function showError(text) { $("error").textContent = text || ""; }

async function api(path, options = {}) {
  const answer = await fetch(path, options);
  const data = await answer.json().catch(() => ({}));
  if (!answer.ok) throw new Error(data.error || `${answer.status}`);
  return data;
}

// ----------------------------------------------------------------------------- hosting

async function host() {
  $("host").hidden = false;
  $("subtitle").textContent = "host a table";
  const options = await api("/api/options");
  for (const name of options.rules) $("h-rules").append(el("option", {value: name}, name));
  for (const n of options.players) $("h-players").append(el("option", {value: n, selected: n === 4}, String(n)));
  const seats = () => {
    const box = $("h-seats");
    box.querySelectorAll("label").forEach((node) => node.remove());
    const n = Number($("h-players").value);
    for (let s = 1; s <= n; s++) {
      const pick = el("select", {id: `h-seat-${s}`});
      // The bots a table seats (not the study page's list), its default opponent chosen.
      const bots = options.table_bots || options.bots;
      const fallback = options.table_bot || bots[0];
      for (const kind of ["person", ...bots]) pick.append(el("option", {value: kind, selected: kind === (s <= 2 ? "person" : fallback)}, kind));
      box.append(el("label", {}, `Seat ${s} `, pick));
    }
  };
  $("h-players").addEventListener("change", seats);
  seats();
  $("host-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    showError("");
    const n = Number($("h-players").value);
    const extra = $("h-options").value.trim();
    const body = {rules: $("h-rules").value + (extra ? "+" + extra : ""), players: n,
      seats: Array.from({length: n}, (_, i) => $(`h-seat-${i + 1}`).value), deals: Number($("h-deals").value)};
    if ($("h-turn").value) body.turn_seconds = Number($("h-turn").value);
    if ($("h-seed").value) body.seed = Number($("h-seed").value);
    try {
      const made = await api("/api/tables", {method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(body)});
      const list = el("ul", {class: "links"});
      for (const seat of made.seats) {
        list.append(el("li", {}, `Seat ${seat.seat}: `, el("a", {href: seat.url, class: "seat-link"}, seat.url)));
      }
      list.append(el("li", {}, "Watchers: ", el("a", {href: made.watch, class: "watch-link"}, made.watch)));
      $("host-links").replaceChildren(el("p", {}, "Send each person their own link (it is their seat: keep it private)."), list);
    } catch (error) { showError(error.message); }
  });
}

// ----------------------------------------------------------------------------- playing

const table = {id: null, token: null, state: null, seen: 0, deal: 0, knows: false, playing: false};

function headers() { return table.token ? {Authorization: `Bearer ${table.token}`} : {}; }

async function play(card) {
  // One play at a time: a lead whose run waits for another seat's choice is answered only
  // once the run is over (till then the table is shown as it stood before the lead).
  if (table.playing) return;
  table.playing = true;
  showError("");
  if (table.state) renderStatus(table.state);
  try {
    const state = await api(`/api/tables/${table.id}/play`, {method: "POST",
      headers: {...headers(), "Content-Type": "application/json"},
      body: JSON.stringify({card, version: table.state ? table.state.version : undefined})});
    table.playing = false;
    render(state);
  } catch (error) { showError(error.message); } finally { table.playing = false; }
}

function seatName(seat, state) {
  const info = state.seats[seat - 1];
  const me = seat === state.seat ? " (you)" : "";
  return `Seat ${seat}${me}${info.kind === "bot" ? ` — ${info.bot}` : ""}`;
}

function announce(state) {
  if (state.deal !== table.deal) { table.deal = state.deal; table.seen = 0; }
  const fresh = state.plays.slice(table.seen);
  table.seen = state.plays.length;
  if (fresh.length) {
    $("announce").textContent = fresh.map((p) => `${seatName(p.seat, state)} plays the ${words(p.card)}${p.choice ? " (a choice)" : ""}.`).join(" ");
  }
  return fresh.length;
}

function renderRound(state, fresh) {
  const round = $("round");
  round.replaceChildren();
  round.className = `round players-${state.players}`;
  const start = state.plays.length - fresh;
  state.seats.forEach((info) => {
    const mine = state.plays.map((p, i) => [p, i]).filter(([p]) => p.seat === info.seat);
    const played = el("div", {class: "played"});
    for (const [p, i] of mine) {
      const node = cardNode(p.card, {class: i >= start ? `new delay-${Math.min(i - start, 9)}` : ""});
      played.append(node);
    }
    const turn = state.to_play === info.seat ? " to play" : "";
    const pos = info.position === 1 ? "eldest" : info.position === state.players ? "dealer" : `position ${info.position}`;
    round.append(el("div", {class: `seat${turn ? " turn" : ""}${info.seat === state.seat ? " me" : ""}`, role: "group", ariaLabel: seatName(info.seat, state)},
      el("div", {class: "seat-name"}, seatName(info.seat, state), el("span", {class: "turn-mark"}, turn ? " ◆ to play" : "")),
      el("div", {class: "seat-info"}, `${pos}; ${info.count} card${info.count === 1 ? "" : "s"} in hand`), played));
  });
  const centre = el("div", {class: "centre", role: "group", ariaLabel: "the board and the turn-up"});
  if (state.turnup) centre.append(el("div", {}, "Turn-up: ", cardNode(state.turnup)));
  const board = el("ul", {class: "board"});
  for (const [name, count] of Object.entries(state.board)) board.append(el("li", {}, `${name} ${count}`));
  centre.append(board, el("div", {}, `Dead hand: ${state.dead_count} cards`));
  round.append(centre);
}

function renderHand(state) {
  const hand = $("hand");
  hand.replaceChildren();
  $("mine").hidden = state.seat === null;
  if (state.seat === null) return;
  const legal = new Set(state.legal);
  for (const card of state.hand) {
    const ok = legal.has(card);
    const node = cardNode(card, {button: true, class: ok ? "legal" : "", note: ok ? "legal lead" : undefined});
    if (ok) { node.append(el("span", {class: "mark", ariaHidden: "true"}, "✓")); node.addEventListener("click", () => play(card)); } else node.disabled = true;
    hand.append(node);
  }
  const options = $("options");
  options.replaceChildren();
  for (const option of state.options) {
    const button = el("button", {type: "button", class: "choice"}, option.option ? `Play ${words(option.card.slice(1))} (${state.choice.kind})` : "Decline");
    button.addEventListener("click", () => play(option.card));
    options.append(button);
  }
}

function renderStatus(state) {
  let text = `Deal ${state.deal} of ${state.deals} (${state.rules}). `;
  if (state.state === "over") text += "The session is over.";
  else if (state.waiting === "ready") text += "Between deals: waiting for " + (state.seat && !state.ready.includes(state.seat) ? "you and " : "") + "the others to be ready.";
  else if (table.playing) text += "Your play is on the table.";
  else if (state.waiting === "choice") text += `Your choice: ${state.choice.kind}.`;
  else text += state.to_play === state.seat ? "Your lead: choose a card marked ✓." : `Seat ${state.to_play} to lead.`;
  if (state.deadline !== null) text += ` ${Math.ceil(state.deadline)} s left.`;
  $("status").textContent = text;
}

function renderAfter(state) {
  const last = state.last_deal;
  $("after").hidden = !last;
  if (!last) { $("grade").replaceChildren(); return; }
  const reveal = $("reveal");
  reveal.replaceChildren();
  for (const [seat, cards] of Object.entries(last.hands)) {
    reveal.append(el("div", {class: "hand-shown"}, `Seat ${seat} held: `, ...cards.map((c) => cardNode(c))));
  }
  reveal.append(el("div", {class: "hand-shown"}, "Dead hand: ", ...last.dead.map((c) => cardNode(c))));
  reveal.append(el("p", {}, "This deal: " + last.values.map((v, i) => `seat ${i + 1} ${v > 0 ? "+" : ""}${v}`).join(", ")));
  if (state.final_round) {
    reveal.append(el("p", {}, "Hoyle's final round, dealt face up: " + state.final_round.settlement.map((t) => `${t.from} → seat ${t.to}: ${t.amount} (${t.reason})`).join("; ")));
  }
  $("ready").hidden = state.state !== "between-deals" || state.seat === null;
  $("ready").disabled = state.ready.includes(state.seat);
  $("grade-btn").hidden = state.seat === null;
  $("record-link").href = `/api/tables/${table.id}/record`;
}

function renderTotals(state) {
  const rows = [el("tr", {}, el("th", {}, "deal"), ...state.seats.map((s) => el("th", {}, `seat ${s.seat}`)))];
  state.history.forEach((values, i) => rows.push(el("tr", {}, el("td", {}, String(i + 1)), ...values.map((v) => el("td", {}, String(v))))));
  rows.push(el("tr", {class: "sum"}, el("td", {}, "total"), ...state.totals.map((v) => el("td", {}, String(v)))));
  $("totals").replaceChildren(...rows);
  $("payments").replaceChildren(...state.payments.map((t) => el("li", {}, `${typeof t.from === "number" ? "seat " + t.from : t.from} → ${typeof t.to === "number" ? "seat " + t.to : t.to}: ${t.amount} (${t.reason})`)));
}

async function renderKnows() {
  if (!table.knows || table.state.seat === null || table.state.state !== "playing") { $("knows").replaceChildren(); return; }
  const state = await api(`/api/tables/${table.id}?knowledge=1`, {headers: headers()});
  const k = state.knowledge;
  if (!k) return;
  const list = el("ul");
  list.append(el("li", {}, `Known dead: ${k.dead.map(words).join(", ") || "none"}`));
  for (const [seat, cards] of Object.entries(k.held)) list.append(el("li", {}, `Seat ${seat} holds: ${cards.map(words).join(", ")}`));
  for (const reason of k.reasons) list.append(el("li", {}, reason));
  list.append(el("li", {}, `${k.unknown} cards whose place you cannot know`));
  $("knows").replaceChildren(list);
}

function render(state) {
  if (table.state && state.version < table.state.version && state.deal === table.state.deal) return;
  table.state = state;
  const fresh = announce(state);
  $("subtitle").textContent = state.seat ? `seat ${state.seat}` : "watching";
  renderStatus(state);
  renderRound(state, fresh);
  renderHand(state);
  renderAfter(state);
  renderTotals(state);
  renderKnows().catch(() => {});
}

async function stream() {
  // Server-sent events read through fetch, so that the seat's token goes in a header (never
  // in an address); read again after a break, with the state fetched afresh.
  for (;;) {
    try {
      const answer = await fetch(`/api/tables/${table.id}/events`, {headers: headers(), cache: "no-store"});
      if (!answer.ok) { const data = await answer.json().catch(() => ({})); showError(data.error || "the table is gone"); if (answer.status === 404 || answer.status === 403) return; throw new Error("stream"); }
      const reader = answer.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = "";
      for (;;) {
        const {value, done} = await reader.read();
        if (done) break;
        buffer += value;
        let end;
        while ((end = buffer.indexOf("\n\n")) >= 0) {
          const chunk = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const data = chunk.split("\n").filter((line) => line.startsWith("data: ")).map((line) => line.slice(6)).join("\n");
          if (data) { showError(""); render(JSON.parse(data)); }
        }
      }
    } catch (error) { /* the connection broke: try again */ }
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

function seatPage(id) {
  $("play").hidden = false;
  table.id = id;
  table.token = location.hash.length > 1 ? location.hash.slice(1) : null;
  $("ready").addEventListener("click", async () => {
    try { render(await api(`/api/tables/${id}/ready`, {method: "POST", headers: headers()})); } catch (error) { showError(error.message); }
  });
  $("grade-btn").addEventListener("click", async () => {
    try {
      const graded = await api(`/api/tables/${id}/grade`, {headers: headers()});
      const list = el("ul");
      for (const lead of graded.leads) {
        const cost = lead.cost.upper;
        list.append(el("li", {}, `Deal ${lead.deal}, lead ${lead.lead}: ${words(lead.card)} — ${cost === 0 ? "best (cost 0)" : `cost ${cost === lead.cost.lower ? cost : lead.cost.lower + " to " + cost}`}`));
      }
      $("grade").replaceChildren(el("p", {}, `Your leads cost ${graded.cost} counters in all (double dummy).`), list);
    } catch (error) { showError(error.message); }
  });
  $("knows-box").addEventListener("toggle", () => { table.knows = $("knows-box").open; renderKnows().catch(() => {}); });
  setInterval(() => { if (table.state && table.state.deadline !== null) { table.state.deadline = Math.max(0, table.state.deadline - 1); renderStatus(table.state); } }, 1000);
  stream();
}

const match = location.pathname.match(/^\/table\/([0-9a-f]+)$/);
if (match) seatPage(match[1]); else host().catch((error) => showError(error.message));
